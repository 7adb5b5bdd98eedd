// The reconciliation pass: a term can change on its own (contract §2.2 gives terms their own
// lastUpdateTime), without its entitlement's lastUpdateTime moving, so no incremental window ever sees
// it. The daily reconciliation re-reads everything and writes only what differs; when nothing differs
// it costs no CRM call. A term row that cannot be read keeps its entitlement back as a dead letter.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { connectionScheduleIds, ensureConnectionSchedules, reconcileScheduleId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { expectSalesforceMatchesCommerce, salesforceDifferences } from '../support/salesforce-state.ts';
import { createSandboxConnection, salesforceCalls, startProductionWorker, startSandboxes, writeCalls } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;
let connectionId: string;
const taskQueue = `reconcile-${Date.now()}`;
const run = (type: string): Promise<SyncProgress> =>
  new Client({ connection: worker.connection }).workflow.execute(type, { taskQueue, workflowId: `${type}-${connectionId}-${Date.now()}`, args: [{ connectionId }] });

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxes({ entitlements: 80, seed: 53 });
  // Look-back 0: in a test everything happens within production's 600 s look-back, which would re-read
  // (and so catch) the changed terms; in production a term changes hours after its entitlement did.
  connectionId = (await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { lookbackSeconds: 0 })).id;
  worker = await startProductionWorker(database, { taskQueue });
});
afterAll(async () => {
  await worker?.stop();
  await sandboxes?.stop();
  await database?.drop();
});

it('every connection has a reconciliation schedule, daily by default', async () => {
  const client = new Client({ connection: worker.connection });
  await ensureConnectionSchedules(client, { connectionId, every: '5m', realtimeEvery: '30s', taskQueue });
  const description = await client.schedule.getHandle(reconcileScheduleId(connectionId)).describe();
  expect(description.action).toMatchObject({ workflowType: WORKFLOW_TYPES.reconcile });
  expect(description.spec.intervals?.[0]?.every).toBe(24 * 3600 * 1000);
  // Every schedule made here goes again: one left behind (co-sell every minute) would run beside the tests below.
  for (const id of connectionScheduleIds(connectionId)) await client.schedule.getHandle(id).delete();
});

it('terms that change alone are missed by the incremental pass and caught by the reconciliation, which then costs no CRM call', async () => {
  await run(WORKFLOW_TYPES.incrementalSync);
  // Once more: our own write-backs moved every offer and entitlement's lastUpdateTime; this run reads
  // those echoes (and writes nothing), so the cursor stands past them.
  await run(WORKFLOW_TYPES.incrementalSync);
  await expectSalesforceMatchesCommerce(sandboxes.commerce, sandboxes.salesforce);

  await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes/mode`, { termsBumpEntitlement: false });
  const { changes } = (await (await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 8, kinds: ['termUsage', 'termCommit'] })).json()) as { changes: unknown[] };
  expect(changes).toHaveLength(8);
  await run(WORKFLOW_TYPES.incrementalSync);
  // The gap the reconciliation closes: amounts in Salesforce that no change stamp announced.
  expect((await salesforceDifferences(sandboxes.commerce, sandboxes.salesforce)).some((line) => /Amount/.test(line))).toBe(true);

  const reconciled = await run(WORKFLOW_TYPES.reconcile);
  expect(reconciled).toMatchObject({ kind: 'reconcile', finished: true });
  expect(reconciled.entities.entitlement!.updated).toBeGreaterThan(0);
  await expectSalesforceMatchesCommerce(sandboxes.commerce, sandboxes.salesforce);
  const { rows } = await database.pool.query(`SELECT status FROM sync_runs WHERE connection_id = $1 AND kind = 'reconcile'`, [connectionId]);
  expect(rows).toEqual([{ status: 'completed' }]);

  await post(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls/reset`);
  const again = await run(WORKFLOW_TYPES.reconcile);
  expect(again.totals.created + again.totals.updated).toBe(0);
  expect(writeCalls(await salesforceCalls(sandboxes.salesforce))).toBe(0);
}, 240_000);

it('a term row that cannot be read keeps its entitlement back as a dead letter; the others reconcile', async () => {
  const entitlements = (await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/entitlements`)).json()) as { id: string }[];
  const held = entitlements[2]!.id;
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/entitlementTerms`, { records: [{ entitlementID: held, lastUpdateTime: '2026-02-01T00:00:00.000Z', commitAmount: 5 }] });
  await run(WORKFLOW_TYPES.reconcile);
  const letters = await createDeadLetterStore(database.pool).listOpen(connectionId, 'entitlement');
  expect(letters.map((letter) => letter.sourceId)).toEqual([held]);
  expect(letters[0]!.reason).toMatch(/terms cannot be read/);
}, 240_000);
