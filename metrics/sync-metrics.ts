// The worker's Prometheus metrics (prom-client), in a registry of its own: what the sync did, counted
// where it happens (records read and written per connection and entity, run durations, API calls per
// target), and what the database holds, read when Prometheus scrapes (dead letters open, lag), with the
// commerce organizations' quotas as this worker's pacer sees them. The admin server serves them.
import client from 'prom-client';
import type pg from 'pg';
import { observeApiCalls } from './api-calls.ts';
import { registerCommerceQuotaGauges } from './commerce-quota.ts';

export type PageCounts = { connectionId: string; entity: string; read: number; created: number; updated: number; unchanged: number; failed: number };
export type FinishedRun = { connectionId: string; kind: string; status: string; seconds: number };

export type SyncMetrics = {
  readonly registry: client.Registry;
  /** One page (one syncEntityPage activity) reached the CRM. */
  pageSynced(page: PageCounts): void;
  /** A run (sync_runs row) finished: completed, failed or cancelled. */
  runFinished(run: FinishedRun): void;
  /** Values a page carried that the picklist maps lack (their fields were left out, §9.5). */
  unknownValues(input: { connectionId: string; entity: string; values: { field: string; value: string; records: number }[] }): void;
  /** Stops counting API calls (observeApi). */
  stop(): void;
};

/** `observeApi`: count this process's API calls too (metrics/api-calls.ts); the worker does, tests choose. */
export function createSyncMetrics(options: { pool?: pg.Pool; prefix?: string; observeApi?: boolean } = {}): SyncMetrics {
  const registry = new client.Registry();
  const prefix = options.prefix ?? 'crm_sync_';
  const records = new client.Counter({
    name: `${prefix}records_total`,
    help: 'Records the sync read from the commerce side and what became of them in the CRM (outcome: read, created, updated, unchanged, failed)',
    labelNames: ['connection', 'entity', 'outcome'] as const,
    registers: [registry],
  });
  const runs = new client.Histogram({
    name: `${prefix}run_duration_seconds`,
    help: 'How long sync runs took, by kind (incremental, realtime, backfill, reconcile, cosell) and how they ended',
    labelNames: ['connection', 'kind', 'status'] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
  });
  const unknown = new client.Counter({
    name: `${prefix}unknown_values_total`,
    help: 'Records carrying a status or enum value the mapping\'s picklist maps do not know (contract §9.5): written without that field, by entity, field and value',
    labelNames: ['connection', 'entity', 'field', 'value'] as const,
    registers: [registry],
  });
  const unknownSeen = new Map<string, Set<string>>();
  const pool = options.pool;
  if (pool) {
    new client.Gauge({
      name: `${prefix}dead_letters_open`,
      help: 'Records waiting as dead letters (rejected, kept with their reason, retried later), by connection and entity',
      labelNames: ['connection', 'entity'] as const,
      registers: [registry],
      async collect() {
        const { rows } = await pool.query(`SELECT connection_id, entity, count(*)::int AS open FROM dead_letters WHERE resolved_at IS NULL GROUP BY connection_id, entity`);
        this.reset();
        for (const row of rows) this.set({ connection: row.connection_id, entity: row.entity }, row.open);
      },
    });
    new client.Gauge({
      name: `${prefix}lag_seconds`,
      help: 'How far each connection\'s CRM trails the commerce side: seconds since the start of its last completed full pass (incremental or reconcile)',
      labelNames: ['connection'] as const,
      registers: [registry],
      async collect() {
        // The newest completed full pass per connection, through the (connection_id, started_at DESC) index.
        const { rows } = await pool.query(
          `SELECT c.id AS connection_id, extract(epoch FROM now() - r.started_at)::float AS lag
             FROM connections c
             JOIN LATERAL (SELECT started_at FROM sync_runs WHERE connection_id = c.id AND status = 'completed' AND kind IN ('incremental', 'reconcile') ORDER BY started_at DESC LIMIT 1) r ON true`,
        );
        this.reset();
        for (const row of rows) this.set({ connection: row.connection_id }, Math.max(0, row.lag));
      },
    });
  }
  if (pool) registerCommerceQuotaGauges(registry, prefix, pool);
  const api = options.observeApi ? observeApiCalls(registry, prefix) : undefined;
  return {
    registry,
    pageSynced(page) {
      const labels = { connection: page.connectionId, entity: page.entity };
      for (const outcome of ['read', 'created', 'updated', 'unchanged', 'failed'] as const) {
        // Every outcome of an entity appears once it synced a page, zeros included, so rates can be taken.
        records.inc({ ...labels, outcome }, page[outcome]);
      }
    },
    runFinished(run) {
      runs.observe({ connection: run.connectionId, kind: run.kind, status: run.status }, Math.max(0, run.seconds));
    },
    unknownValues({ connectionId, entity, values }) {
      // A value is a status or enum of the contract: a handful per field, so a label of its own; past 20
      // distinct values of one field (a service sending garbage) the rest count as "other", so the series stay few.
      for (const value of values) {
        const key = `${connectionId}\u0000${entity}\u0000${value.field}`;
        const seen = (unknownSeen.get(key) ?? unknownSeen.set(key, new Set()).get(key))!;
        if (seen.size < 20) seen.add(value.value);
        const label = seen.has(value.value) ? value.value.slice(0, 64) : 'other';
        unknown.inc({ connection: connectionId, entity, field: value.field, value: label }, value.records);
      }
    },
    stop() {
      api?.stop();
    },
  };
}
