// One connection's runs cooperate: `connect` then `backfill` must not start two full loads at once. While
// a backfill runs, the scheduled incremental pass leaves the entities it leases to it; once the backfill
// has covered everything, the incremental cursor follows it, so the next incremental run reads only its
// look-back window instead of loading the whole history a second time.
import { Client } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProgress, startBackfill } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { expectSalesforceMatchesCommerce } from '../support/salesforce-state.ts';
import { commerceDump, createSandboxConnection, salesforceCalls, startProductionWorker, startSandboxes, writeCalls } from '../support/sync-harness.ts';

const ENTITIES = ['buyer', 'contact', 'offer', 'entitlement', 'referral'] as const;
let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;
let connectionId: string;
const taskQueue = `cooperate-${Date.now()}`;

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxes({ entitlements: 150, seed: 29 });
  connectionId = (await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 50 })).id;
  worker = await startProductionWorker(database, { taskQueue });
});
afterAll(async () => {
  await worker?.stop();
  await sandboxes?.stop();
  await database?.drop();
});

it('an incremental run during a backfill leaves the leased entities to it; afterwards it reads only its look-back window', async () => {
  const client = new Client({ connection: worker.connection });
  // Slow commerce answers keep the backfill running long enough to meet the incremental run.
  await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: '*', latencyMs: 40 }) });
  const backfillStart = Date.now();
  const backfill = await startBackfill(client, taskQueue, { connectionId, entities: [...ENTITIES] });
  // Wait until the backfill holds its leases.
  for (let tries = 0; ; tries += 1) {
    const { rows } = await database.pool.query('SELECT entity FROM entity_leases WHERE connection_id = $1', [connectionId]);
    if (rows.length === ENTITIES.length) break;
    expect(tries).toBeLessThan(400);
    await sleep(50);
  }
  const during: SyncProgress = await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cooperate-during-${Date.now()}`, args: [{ connectionId }] });
  // Every entity was left to the backfill: nothing read, nothing written a second time.
  expect(Object.fromEntries(ENTITIES.map((entity) => [entity, during.entities[entity]?.skippedFor]))).toEqual(Object.fromEntries(ENTITIES.map((entity) => [entity, backfill.workflowId])));
  expect(during.totals.records).toBe(0);
  const finished: SyncProgress = await backfill.result();
  expect(finished.finished).toBe(true);
  await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
  expect((await database.pool.query('SELECT * FROM entity_leases WHERE connection_id = $1', [connectionId])).rows).toEqual([]);
  await expectSalesforceMatchesCommerce(sandboxes.commerce, sandboxes.salesforce);

  // The backfill covered everything from the beginning: the incremental cursor stands where it ended.
  const { rows: cursorRows } = await database.pool.query('SELECT entity FROM sync_cursors WHERE connection_id = $1 ORDER BY entity', [connectionId]);
  expect(cursorRows.map((row) => row.entity)).toEqual([...ENTITIES].sort());
  await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls/reset`, { method: 'POST' });
  const after: SyncProgress = await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cooperate-after-${Date.now()}`, args: [{ connectionId }] });
  // Only the look-back window is read again (600 s before each cursor: the last instant of the seeded
  // history), plus the records touched since the backfill began (our own write-backs bump offers and
  // entitlements); the rest of the history is not loaded a second time, and nothing is written.
  const kinds = { buyer: 'buyers', contact: 'contacts', offer: 'offers', entitlement: 'entitlements', referral: 'referrals' } as const;
  for (const entity of ENTITIES) {
    const rows = await commerceDump(sandboxes.commerce, kinds[entity]);
    const touched = rows.filter((row) => Date.parse(row.lastUpdateTime) >= backfillStart - 1000).length;
    const history = rows.length - touched;
    expect(after.entities[entity]!.records - touched, entity).toBeLessThanOrEqual(Math.max(8, history / 10));
  }
  expect(after.totals.created + after.totals.updated).toBe(0);
  expect(writeCalls(await salesforceCalls(sandboxes.salesforce))).toBe(0);
  expect(await readProgress(backfill)).toMatchObject({ finished: true });
}, 240_000);
