// A backfill of entitlements (with their buyers and offers) while the worker process is SIGKILLed at
// points of the run and restarted, for each CRM: the final CRM state is exactly the expected one, with no
// duplicate and no missing record.
//
// `npm test` keeps the reduced form: 1,500 entitlements for each CRM (7 pages of 500: one of buyers,
// three of offers, three of entitlements) and two kills at fixed moments, one while the offers are
// written and one while the entitlements are, each while an activity runs on the worker; the three CRMs
// run at the same time (a database, sandboxes, task queue and worker processes each: nothing shared), so
// the heartbeat timeouts the kills cost overlap. `npm run chaos` (CRM_SYNC_CHAOS=full) runs the full
// form: 20,000 entitlements into every CRM, one CRM after the other, and five kills at random moments
// (its seed printed, CRM_SYNC_CHAOS_SEED replays it).
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Entity } from '../support/expected-crm.ts';
import { backfillWorkflowId, readProgress } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { expectedCrmState, salesforceDump, sameValue } from '../support/sync-harness.ts';
import { CHAOS_FULL, CHAOS_SEED, randomMoments } from '../support/chaos.ts';



const TARGETS: [Entity, string, string][] = [
  ['buyer', 'Account', 'Commerce_Buyer_Id__c'],
  ['offer', 'Opportunity', 'Commerce_Offer_Id__c'],
  ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c'],
];

/**
 * `npm test`: 1,500 entitlements (375 buyers, 1,500 offers: 7 pages of 500). An activity gathers pages up
 * to the CRM's preferred batch (5,000 records in each CRM), so here each entity is one activity and the
 * progress counts its pages when it ends: once the buyers' page is counted the offers' activity runs, and
 * once the offers' three are the entitlements' runs. The kills land in those two: what is proved is
 * convergence after a kill in the middle of the writes, which a larger organization or more kills would
 * only repeat.
 */
const REDUCED_SCALE = { entitlements: 1_500, pageSize: 500, killAt: [1, 4] };
const REDUCED = { salesforce: REDUCED_SCALE, hubspot: REDUCED_SCALE, dynamics: REDUCED_SCALE };
/**
 * `npm run chaos`: 20,000 entitlements into every CRM and five kills at random moments among the pages
 * read (buyers a quarter of the entitlements, then offers and entitlements: 45 pages of 1,000).
 */
const FULL = { entitlements: 20_000, pageSize: 1000, killAt: randomMoments(5, 44) };
const SCALE = CHAOS_FULL ? { salesforce: FULL, hubspot: FULL, dynamics: FULL } : REDUCED;
if (CHAOS_FULL) console.info(`backfill-kill: kills after pages ${FULL.killAt.join(', ')} (CRM_SYNC_CHAOS_SEED=${CHAOS_SEED} replays them)`);

/** PendingActivityState.PENDING_ACTIVITY_STATE_STARTED (temporal.api.enums.v1): a worker has the activity running. */
const STARTED = 2;

describe.each(CRMS_UNDER_TEST)('a backfill of entitlements into %s survives SIGKILLs of its worker', { concurrent: !CHAOS_FULL }, (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: SCALE[kind].entitlements, seed: 31 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('converges to the expected state with no duplicate and no missing record', { timeout: CHAOS_FULL ? 3_600_000 : 900_000 }, async () => {
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: SCALE[kind].pageSize, entities: TARGETS.map(([entity]) => entity) });
    const taskQueue = `backfill-kill-${kind}-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    // A killed worker's activity is retried once its heartbeat times out: 10 seconds here instead of
    // production's 2 minutes, so three kills cost seconds (what is tested is convergence, not the wait).
    const request = { connectionId, entities: TARGETS.map(([entity]) => entity) };
    const handle = await new Client({ connection }).workflow.start(WORKFLOW_TYPES.backfill, {
      taskQueue,
      workflowId: backfillWorkflowId(request),
      args: [{ ...request, activityTimeouts: { heartbeat: '10 seconds' } }],
    });

    // Kill the worker outright at points of the run (pages read so far: REDUCED and FULL above).
    // A run that ends before a kill lands proved nothing about it: the test says so rather than wait.
    const tooLate = (index: number) => expect.fail(`the backfill ended before kill ${index + 1} of ${SCALE[kind].killAt.length} landed`);
    for (const [index, killAt] of SCALE[kind].killAt.entries()) {
      for (;;) {
        const progress = await readProgress(handle).catch(() => undefined);
        if (progress?.finished) tooLate(index);
        if (progress && progress.totals.pages >= killAt) break;
        await sleep(100);
      }
      // Kill while an activity runs on the worker (Temporal says it started), not between two: a kill in
      // that gap leaves nothing to retry, and the run would prove less than it claims.
      for (;;) {
        const { raw, status } = await handle.describe();
        if (status.name !== 'RUNNING') tooLate(index);
        if ((raw.pendingActivities ?? []).some((activity) => Number(activity.state) === STARTED)) break;
        await sleep(20);
      }
      const victim = workers.at(-1)!;
      victim.kill('SIGKILL');
      await waitForExit(victim);
      workers.push(await startWorkerProcess(`w${index + 1}`, env));
    }
    const result = await handle.result();
    expect(result.finished).toBe(true);
    // The kills hit running work: activities of the killed workers timed out on their heartbeats and were
    // retried (a retried attempt shows in its started event, with the timeout as its last failure).
    const { events } = await handle.fetchHistory();
    const retried = events!.filter((event) => Number(event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
    expect(retried.length, 'activities retried after the kills').toBeGreaterThan(0);
    expect(retried.some((event) => /heartbeat/i.test(JSON.stringify(event.activityTaskStartedEventAttributes?.lastFailure ?? {}))), 'a retry after a heartbeat timeout').toBe(true);
    expect(result.totals.failed).toBe(0);

    // No duplicate, no missing record: one CRM record per commerce record of each entity.
    for (const [entity] of TARGETS) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      expect([...(await sandboxes.crm.keyed(entity)).keys()].sort(), entity).toEqual([...expected.keys()].sort());
    }
    if (kind !== 'salesforce') {
      // Every field and link as the CRM's witness says.
      expect(await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce, TARGETS.map(([entity]) => entity))).toEqual([]);
      return;
    }
    for (const [entity, object, externalIdField] of TARGETS) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      const stored = await salesforceDump(sandboxes.crm.salesforce!, object);
      expect(stored.length, `${object}: no duplicate`).toBe(expected.size);
      const byExternalId = new Map(stored.map((record) => [record[externalIdField], record]));
      expect(byExternalId.size, `${object}: no missing record`).toBe(expected.size);
      for (const [externalId, fields] of expected) {
        const record = byExternalId.get(externalId);
        expect(record, `${object} ${externalId}`).toBeDefined();
        for (const [field, value] of Object.entries(fields)) {
          if (value && typeof value === 'object') continue;
          if (!sameValue(value, record[field])) expect.fail(`${object} ${externalId} ${field}: expected ${JSON.stringify(value)}, stored ${JSON.stringify(record[field])}`);
        }
      }
    }
  });
});
