// A connection's runs as a person reads them: kind, outcome, when, how long, what they did (totals and
// per entity). Read from sync_runs, which every workflow run writes when it starts and ends.
import type pg from 'pg';
import { createSyncRunStore } from '../store/sync-runs.ts';

export type RunCounts = { records: number; created: number; updated: number; unchanged: number; failed: number };

export type RunView = {
  id: string;
  kind: string;
  status: string;
  startedAt: Date;
  finishedAt: Date | null;
  seconds: number | null;
  counts: RunCounts;
  /** Per entity, when the run recorded them (sync passes do). */
  entities: Record<string, RunCounts>;
  error: string | null;
};

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function countsOf(raw: Record<string, unknown> | undefined): RunCounts {
  // A co-sell run counts what it made and refused; a realtime run the records of its events.
  const created = number(raw?.created);
  return { records: number(raw?.records), created, updated: number(raw?.updated), unchanged: number(raw?.unchanged), failed: number(raw?.failed) + number(raw?.refused) };
}

export async function runHistory(pool: pg.Pool, connectionId: string, limit = 20): Promise<RunView[]> {
  const runs = await createSyncRunStore(pool).latest(connectionId, limit);
  return runs.map((run) => {
    const raw = run.counts as Record<string, unknown>;
    const entities = Object.fromEntries(Object.entries((raw.entities as Record<string, Record<string, unknown>>) ?? {}).map(([entity, counts]) => [entity, countsOf(counts)]));
    return {
      id: run.id,
      kind: run.kind,
      status: run.status,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      seconds: run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null,
      counts: countsOf(raw),
      entities,
      error: run.error,
    };
  });
}
