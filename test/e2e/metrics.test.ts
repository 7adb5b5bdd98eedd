// The admin server's /metrics after a real sync (real Temporal, real PostgreSQL, the commerce and Dataverse
// sandboxes): every request needs the admin token; the records counted per connection, entity and
// outcome are the run's own totals; the dead letters open are the ones the store holds; the run's
// duration is observed once; nothing a connection keeps secret appears.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const TOKEN = 'metrics-test-token-0123456789abcdef';

describe('/metrics on the admin server, after a sync', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let admin: AdminServer;
  let connectionId: string;
  const taskQueue = `metrics-${Date.now()}`;
  let registryStop = () => {};
  const metrics = () => fetch(`${admin.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  /** The Dataverse calls counted so far: in all, with 429, and timed. */
  const readApiCalls = async () => {
    const lines = (await (await metrics()).text()).split('\n');
    const sum = (prefix: string) => lines.filter((line) => line.startsWith(prefix)).reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    return {
      total: sum('crm_sync_api_calls_total{target="dynamics"'),
      '429': sum('crm_sync_api_calls_total{target="dynamics",outcome="429"}'),
      observed: sum('crm_sync_api_call_duration_seconds_count{target="dynamics"}'),
      waits: sum('crm_sync_api_rate_limit_waits_total{target="dynamics"}'),
      waited: sum('crm_sync_api_rate_limit_wait_seconds_total{target="dynamics"}'),
    };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('dynamics', { entitlements: 120, seed: 19 });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 50 })).id;
    const registry = createSyncMetrics({ pool: database.pool, observeApi: true });
    worker = await startProductionWorker(database, { taskQueue, metrics: registry });
    admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: registry });
    registryStop = () => registry.stop();
  });
  afterAll(async () => {
    await admin?.stop();
    registryStop();
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('refuses a request without the token, or with another, and answers nothing else', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }, { authorization: `Basic ${TOKEN}` }]) {
      const answer = await fetch(`${admin.url}/metrics`, { headers });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await answer.text()).not.toContain('crm_sync_');
    }
  });

  it("counts what the run did, per entity and outcome, as the run's own totals say; API calls and rate-limit waits as the sandbox counted them", async () => {
    // Dataverse's service protection answers one call in ten with 429 and Retry-After: 1.
    await sandboxes.crm.calls(); // the environment's setup (tables, columns, keys) has finished
    await sandboxes.crm.resetCalls();
    const before = await readApiCalls();
    await sandboxes.crm.faults({ rate429: 0.1, seed: 5 });
    const result: SyncProgress = await new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `metrics-${connectionId}`, args: [{ connectionId }] });
    expect(result.finished).toBe(true);
    const answer = await metrics();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    const value = (name: string, labels: Record<string, string>) => {
      const wanted = Object.entries(labels).map(([key, label]) => `${key}="${label}"`);
      const line = text.split('\n').find((row) => row.startsWith(`${name}{`) && wanted.every((pair) => row.includes(pair)));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    let failed = 0;
    for (const [entity, progress] of Object.entries(result.entities)) {
      for (const outcome of ['created', 'updated', 'unchanged', 'failed'] as const) {
        expect(value('crm_sync_records_total', { connection: connectionId, entity, outcome }), `${entity} ${outcome}`).toBe(progress![outcome]);
      }
      expect(value('crm_sync_records_total', { connection: connectionId, entity, outcome: 'read' }), `${entity} read`).toBe(progress!.records);
      failed += progress!.failed;
    }
    // The refused referrals (they name opportunities of another environment) wait as dead letters.
    expect(failed).toBeGreaterThan(0);
    const open = await createDeadLetterStore(database.pool).listOpen(connectionId);
    const byEntity = Map.groupBy(open, (letter) => letter.entity);
    for (const [entity, letters] of byEntity) expect(value('crm_sync_dead_letters_open', { connection: connectionId, entity }), entity).toBe(letters.length);
    expect(value('crm_sync_run_duration_seconds_count', { connection: connectionId, kind: 'incremental', status: 'completed' })).toBe(1);
    // Every call the worker made to Dataverse (tokens included), by outcome, as the sandbox counted them.
    const dataverse = await sandboxes.crm.calls();
    const injected = await sandboxes.crm.injected();
    await sandboxes.crm.clearFaults();
    const after = await readApiCalls();
    expect(after.total - before.total).toBe(dataverse.total);
    expect(injected['429']).toBeGreaterThan(0);
    expect(after['429'] - before['429']).toBe(injected['429']);
    expect(after.waits - before.waits).toBe(injected['429']);
    expect(after.waited - before.waited).toBe(injected['429']); // Retry-After: 1 each
    expect(value('crm_sync_api_calls_total', { target: 'commerce', outcome: '2xx' })).toBeGreaterThan(0);
    expect(after.observed - before.observed).toBe(dataverse.total);
    // The CRM holds every change made before the run started: its lag is the time since then.
    expect(value('crm_sync_lag_seconds', { connection: connectionId })).toBeLessThan(120);
    // Nothing a connection keeps secret.
    expect(text).not.toContain(sandboxes.commerce.clientSecret);
    expect(text).not.toContain(sandboxes.crm.secrets().crmClientSecret);
  }, 120_000);
});
