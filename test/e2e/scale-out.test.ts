// Two worker processes on one task queue share a backfill's pages, and the result is exactly right.
import type { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backfillWorkflowId, startBackfill } from '../../temporal/sync-schedules.ts';
import { startWorkerProcess } from '../support/worker-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createSandboxConnection, expectedCrmState, salesforceDump, startSandboxes } from '../support/sync-harness.ts';



describe('two workers on one task queue (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 600, seed: 21 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('share the pages of a backfill and converge to the exact expected state', async () => {
    const { id: connectionId } = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 50 });
    const taskQueue = `scale-out-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('one', env), await startWorkerProcess('two', env));
    const client = new Client({ connection });
    const request = { connectionId, entities: ['buyer', 'offer', 'entitlement'] as const };
    const handle = await startBackfill(client, taskQueue, { ...request, entities: [...request.entities] });
    // A second trigger with the same options joins the running backfill.
    const again = await startBackfill(client, taskQueue, { ...request, entities: [...request.entities].reverse() });
    expect(again.workflowId).toBe(handle.workflowId);
    expect(handle.workflowId).toBe(backfillWorkflowId({ ...request, entities: [...request.entities] }));
    const result = await handle.result();
    expect(result.totals.failed).toBe(0);

    const history = await handle.fetchHistory();
    const identities = new Set(history.events!.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes!.identity!.split('-')[0]));
    expect(identities).toEqual(new Set(['one', 'two']));

    for (const [entity, object, field] of [['buyer', 'Account', 'Commerce_Buyer_Id__c'], ['offer', 'Opportunity', 'Commerce_Offer_Id__c'], ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c']] as const) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      const stored = await salesforceDump(sandboxes.salesforce, object);
      expect(stored.map((record) => record[field]).sort()).toEqual([...expected.keys()].sort());
    }
  });
});
