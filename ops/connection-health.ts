// How each connection is doing, as revenue ops asks it: its last run and how it ended, how far the CRM
// trails the commerce side, open dead letters, the CRM's API budget and the commerce organization's
// quotas beside it, and whether it is paused or needs re-authorisation. Read from PostgreSQL (and Temporal for the schedule's pause); shared by the CLI and
// the console. Never holds a secret.
import type pg from 'pg';
import { CRM_NAMES, type CrmKind } from '../crm/connector.ts';
import type { Connection } from '../store/connections.ts';
import type { CommerceQuotaFigure, CommerceQuotaReader } from './commerce-quota.ts';
import { writesBack } from '../sync/write-back-owner.ts';

export type LastRun = { id: string; kind: string; status: string; startedAt: Date; finishedAt: Date | null; error: string | null };

export type HealthStatus = 'healthy' | 'never run' | 'failing' | 'dead letters' | 'needs re-authorisation' | 'paused' | 'behind';

export type ConnectionHealth = {
  id: string;
  name: string;
  crmKind: CrmKind;
  crm: string;
  writesBack: boolean;
  status: HealthStatus;
  /** One sentence for a person: what is wrong and what to do, or that all is well. */
  summary: string;
  lastRun: LastRun | null;
  /** Every commerce change made before this moment is in the CRM: the start of the last completed full pass. */
  crmCurrentAsOf: Date | null;
  /** Seconds between that moment and now: how far the CRM trails the commerce side. */
  lagSeconds: number | null;
  openDeadLetters: number;
  apiBudget: { used: number; limit: number; share: number } | null;
  /** The commerce organization's quotas as the service reports them (A20); null when not read or unreadable. */
  commerceQuota?: CommerceQuotaFigure[] | null;
  /** null when Temporal could not be asked. */
  paused: boolean | null;
  needsReauthorisation: { reason: string; since: Date } | null;
};

export type ScheduleState = { paused: boolean } | undefined;

// The passes that read every entity of the connection from its cursor: when one completes, the CRM holds
// every commerce change made before it started.
const FULL_PASSES = ['incremental', 'reconcile'];

/**
 * Facts per connection in one query. Each fact is the newest matching run of that connection, found by
 * walking its (connection_id, started_at DESC) index backwards, so the cost does not grow with the
 * years of run history a connection keeps.
 */
async function readFacts(pool: pg.Pool, connectionIds: string[]) {
  const { rows } = await pool.query(
    `SELECT c.id AS connection_id, last.id AS run_id, last.kind, last.status, last.started_at, last.finished_at, last.error,
            current.started_at AS current_as_of, budget.value AS budget,
            (SELECT count(*)::int FROM dead_letters d WHERE d.connection_id = c.id AND d.resolved_at IS NULL) AS open_letters
       FROM unnest($1::text[]) AS c(id)
       LEFT JOIN LATERAL (SELECT * FROM sync_runs r WHERE r.connection_id = c.id ORDER BY r.started_at DESC LIMIT 1) last ON true
       LEFT JOIN LATERAL (SELECT r.started_at FROM sync_runs r WHERE r.connection_id = c.id AND r.status = 'completed' AND r.kind = ANY($2::text[]) ORDER BY r.started_at DESC LIMIT 1) current ON true
       LEFT JOIN LATERAL (SELECT r.counts->'apiBudget' AS value FROM sync_runs r WHERE r.connection_id = c.id AND r.counts ? 'apiBudget' ORDER BY r.started_at DESC LIMIT 1) budget ON true`,
    [connectionIds, FULL_PASSES],
  );
  const byId = new Map(rows.map((row) => [row.connection_id as string, row]));
  return {
    lastRun: (id: string): LastRun | null => {
      const row = byId.get(id);
      return row?.run_id ? { id: row.run_id, kind: row.kind, status: row.status, startedAt: row.started_at, finishedAt: row.finished_at, error: row.error } : null;
    },
    currentAsOf: (id: string): Date | null => byId.get(id)?.current_as_of ?? null,
    openLetters: (id: string): number => byId.get(id)?.open_letters ?? 0,
    budget: (id: string): { used: number; limit: number } | undefined => byId.get(id)?.budget ?? undefined,
  };
}

/**
 * The status and its one-line summary, most urgent first: credentials refused, paused, last run failed,
 * the CRM more than `behindAfterSeconds` behind, records waiting as dead letters.
 */
export function judgeHealth(facts: Pick<ConnectionHealth, 'name' | 'lastRun' | 'lagSeconds' | 'openDeadLetters' | 'paused' | 'needsReauthorisation'>, behindAfterSeconds: number): { status: HealthStatus; summary: string } {
  const { name } = facts;
  if (facts.needsReauthorisation) return { status: 'needs re-authorisation', summary: `${facts.needsReauthorisation.reason}. Save working secrets: crm-sync edit ${name}` };
  if (facts.paused) return { status: 'paused', summary: `Its schedules are paused: crm-sync resume ${name}` };
  if (!facts.lastRun) return { status: 'never run', summary: `No sync has run yet: crm-sync sync ${name} starts one now` };
  if (facts.lastRun.status === 'failed') return { status: 'failing', summary: `The last ${facts.lastRun.kind} run failed: ${facts.lastRun.error ?? 'no message'}` };
  if (facts.lagSeconds !== null && facts.lagSeconds > behindAfterSeconds) {
    return { status: 'behind', summary: `The CRM trails the commerce side by ${formatSeconds(facts.lagSeconds)}: see crm-sync runs ${name}` };
  }
  if (facts.openDeadLetters > 0) {
    return { status: 'dead letters', summary: `${facts.openDeadLetters} record${facts.openDeadLetters === 1 ? '' : 's'} waiting as dead letters: crm-sync errors ${name}` };
  }
  return { status: 'healthy', summary: 'Syncing' };
}

export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

/** How long an interval like 5m, 30s or 24h is, in seconds. */
export function intervalSeconds(interval: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(interval);
  if (!match) return 0;
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h'];
}

export async function readConnectionHealth(
  pool: pg.Pool,
  connections: Connection[],
  /** `all`: every saved connection, when `connections` is a few of them (who writes back is decided among all). */
  options: { now?: Date; scheduleState?: (connectionId: string) => Promise<ScheduleState>; all?: Connection[]; commerceQuota?: CommerceQuotaReader } = {},
): Promise<ConnectionHealth[]> {
  const now = options.now ?? new Date();
  const facts = await readFacts(pool, connections.map((connection) => connection.id));
  return Promise.all(
    connections.map(async (connection) => {
      const currentAsOf = facts.currentAsOf(connection.id);
      const budget = facts.budget(connection.id);
      let paused: boolean | null = null;
      try {
        const state = options.scheduleState ? await options.scheduleState(connection.id) : undefined;
        paused = state ? state.paused : null;
      } catch {
        paused = null; // Temporal unreachable: the rest still answers
      }
      const commerceQuota = options.commerceQuota ? await options.commerceQuota(connection).catch(() => null) : null;
      const every = intervalSeconds(((connection.settings as { schedule?: { every?: string } }).schedule?.every) ?? '5m');
      const health = {
        id: connection.id,
        name: connection.name,
        crmKind: connection.crmKind,
        crm: CRM_NAMES[connection.crmKind],
        writesBack: writesBack(connection, options.all ?? connections),
        lastRun: facts.lastRun(connection.id),
        crmCurrentAsOf: currentAsOf,
        lagSeconds: currentAsOf ? Math.max(0, (now.getTime() - currentAsOf.getTime()) / 1000) : null,
        openDeadLetters: facts.openLetters(connection.id),
        apiBudget: budget ? { used: budget.used, limit: budget.limit, share: budget.used / budget.limit } : null,
        commerceQuota,
        paused,
        needsReauthorisation: connection.needsReauthorisation ?? null,
      };
      // Behind: three scheduled intervals without a completed pass (one slow run is not yet a problem).
      return { ...health, ...judgeHealth(health, Math.max(3 * every, 15 * 60)) };
    }),
  );
}
