// The sync workflows on a real Temporal server and real PostgreSQL, reading the commerce sandbox and
// writing an in-memory CRM: runs, progress queries, backfill joining, sync_runs rows, cancellation.
import { Client, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSyncActivities } from '../../activities/sync.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createSyncRunStore } from '../../store/sync-runs.ts';
import { readProgress, startBackfill } from '../../temporal/sync-schedules.ts';
import { WORKFLOWS_PATH } from '../../worker.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createMemoryCrm, memoryConnection } from '../support/memory-crm.ts';
import { expectedCrmState, sameValue } from '../support/expected-crm.ts';

describe('sync workflows (real Temporal, real PostgreSQL, commerce sandbox, in-memory CRM)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let crm: ReturnType<typeof createMemoryCrm>;
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;
  let connectionId: string;
  let latency = 0;
  const taskQueue = `sync-workflow-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 300, seed: 9 });
    crm = createMemoryCrm(SALESFORCE_MAPPINGS);
    const slowCrm = { ...crm.connector, upsert: async (...args: Parameters<typeof crm.connector.upsert>) => { if (latency) await new Promise((r) => setTimeout(r, latency)); return crm.connector.upsert(...args); } };
    const made = await memoryConnection(database.pool, commerce, { name: 'memory', pageSize: 40, crm: slowCrm });
    connectionId = made.connectionId;
    const runtime = made.runtime;
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    worker = await Worker.create({ connection, taskQueue, workflowsPath: WORKFLOWS_PATH, activities: createSyncActivities({ pool: database.pool, runtimeFor: async () => runtime }) });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
    await commerce?.stop();
    await database?.drop();
  });

  it('an incremental run syncs every entity in dependency order and records its run', async () => {
    const client = new Client({ connection });
    const result: SyncProgress = await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `inc-${Date.now()}`, args: [{ connectionId }] });
    expect(result.finished).toBe(true);
    expect(Object.keys(result.entities)).toEqual(['buyer', 'contact', 'offer', 'entitlement', 'referral']);
    expect(result.totals.failed).toBe(0);
    expect(crm.objects('Marketplace_Entitlement__c')).toHaveLength(300);
    expect(result.entities.entitlement!.pages).toBe(Math.floor(300 / 40) + 1);
    const [run] = await createSyncRunStore(database.pool).latest(connectionId);
    expect(run).toMatchObject({ kind: 'incremental', status: 'completed', counts: { created: result.totals.created } });

    const again: SyncProgress = await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `inc2-${Date.now()}`, args: [{ connectionId }] });
    expect(again.totals.created + again.totals.updated).toBe(0);
  });

  it('a backfill reports progress while it runs, a second trigger joins it, and cancelling it is recorded', async () => {
    const client = new Client({ connection });
    latency = 300;
    const request = { connectionId, entities: ['entitlement' as const], forgetLinks: true };
    const handle = await startBackfill(client, taskQueue, request);
    expect((await startBackfill(client, taskQueue, request)).firstExecutionRunId).toBe(handle.firstExecutionRunId);
    let progress: SyncProgress | undefined;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      progress = await readProgress(handle).catch(() => undefined);
      if (progress && progress.totals.pages >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(progress!.entity).toBe('entitlement');
    expect(progress!.totals.pages).toBeGreaterThanOrEqual(2);
    expect(progress!.finished).toBe(false);
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    latency = 0;
    const runs = await createSyncRunStore(database.pool).latest(connectionId);
    expect(runs.find((run) => run.kind === 'backfill')).toMatchObject({ status: 'cancelled' });
  });
});

describe('sync under commerce faults (real Temporal, real PostgreSQL, in-memory CRM)', () => {
  it('converges to exactly the expected CRM state with 10% 500s, 5% 429s with Retry-After and expiring tokens', async () => {
    const database = await createTestDatabase();
    const commerce = await startCommerceSandbox({ entitlements: 150, seed: 13 });
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const taskQueue = `chaos-${Date.now()}`;
    const crm = createMemoryCrm(SALESFORCE_MAPPINGS);
    const { connectionId, runtime } = await memoryConnection(database.pool, commerce, { name: 'chaos', pageSize: 30, crm: crm.connector, minRetryDelayMs: 5 });
    const worker = await Worker.create({ connection, taskQueue, workflowsPath: WORKFLOWS_PATH, activities: createSyncActivities({ pool: database.pool, runtimeFor: async () => runtime }) });
    const running = worker.run();
    // Tokens expire every second while the sync runs (they live an hour in production).
    const expire = setInterval(() => void fetch(`${commerce.apiUrl}/_sandbox/tokens/expire`, { method: 'POST' }), 1000);
    try {
      await fetch(`${commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: '*', rate500: 0.1, rate429: 0.05, retryAfterSeconds: 1 }) });
      const result: SyncProgress = await new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `chaos-${Date.now()}`, args: [{ connectionId }] });
      expect(result.totals.failed).toBe(0);
      for (const [entity, object, field] of [['buyer', 'Account', 'Commerce_Buyer_Id__c'], ['offer', 'Opportunity', 'Commerce_Offer_Id__c'], ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c']] as const) {
        const expected = await expectedCrmState(commerce, entity);
        const rows = crm.objects(object);
        expect(rows.length, entity).toBe(expected.size);
        for (const row of rows) {
          const fields = expected.get(String(row[field]))!;
          for (const [name, value] of Object.entries(fields)) expect(sameValue(value, row[name]), `${entity} ${row[field]} ${name}`).toBe(true);
        }
      }
    } finally {
      clearInterval(expire);
      worker.shutdown();
      await running;
      await connection.close();
      await commerce.stop();
      await database.drop();
    }
  });
});
