// One row per sync workflow run, with its counters: what revenue ops reads to see that syncs happen.
import type pg from 'pg';
import { redactText } from './redact.ts';

export type SyncRunKind = 'incremental' | 'realtime' | 'backfill' | 'reconcile' | 'cosell';
export type SyncRun = { id: string; connectionId: string; kind: string; status: string; startedAt: Date; finishedAt: Date | null; counts: Record<string, unknown>; error: string | null };

export function createSyncRunStore(pool: pg.Pool) {
  return {
    /**
     * Idempotent: a replayed activity rewrites the same row. Returns when the run started and finished.
     * The error is redacted as dead letters are: a failure's message may quote a token, a URL's password
     * or a request body, and the row is read by the console, the CLI and anyone with the database.
     */
    async record(run: {
      id: string;
      connectionId: string;
      kind: SyncRunKind;
      status: 'running' | 'completed' | 'failed' | 'cancelled';
      counts?: unknown;
      error?: string;
      /**
       * When the run began, for a run whose row is first written as it ends (notification and co-sell
       * passes write none when they found nothing): without it the row would start when it finished.
       * A row already there keeps its start.
       */
      startedAt?: Date;
    }): Promise<{ startedAt: Date; finishedAt: Date | null }> {
      const { rows } = await pool.query(
        `INSERT INTO sync_runs (id, connection_id, kind, status, counts, error, finished_at, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $4 = 'running' THEN NULL ELSE now() END, COALESCE($7::timestamptz, now()))
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, counts = EXCLUDED.counts, error = EXCLUDED.error, finished_at = EXCLUDED.finished_at
         RETURNING started_at, finished_at`,
        [run.id, run.connectionId, run.kind, run.status, JSON.stringify(run.counts ?? {}), run.error === undefined ? null : redactText(run.error), run.startedAt ?? null],
      );
      return { startedAt: rows[0].started_at, finishedAt: rows[0].finished_at };
    },

    async latest(connectionId: string, limit = 20): Promise<SyncRun[]> {
      const result = await pool.query(`SELECT * FROM sync_runs WHERE connection_id = $1 ORDER BY started_at DESC LIMIT $2`, [connectionId, limit]);
      return result.rows.map((row) => ({ id: row.id, connectionId: row.connection_id, kind: row.kind, status: row.status, startedAt: row.started_at, finishedAt: row.finished_at, counts: row.counts, error: row.error }));
    },
  };
}
