// Real APIs answer in hundreds of milliseconds, not one: with 300 ms on every commerce and CRM call
// (Salesforce and HubSpot in turn), a full sync and a notification run must still complete exactly, every activity heartbeating
// through its long phases (terms reads, write-backs, reads by id) so that no attempt times out and no
// second attempt ever runs beside a first. The heartbeat timeout is cut to 5 s so that a phase that
// forgets to heartbeat shows within a test's time (production: 2 minutes, with phases 10x longer).
// The three CRMs run at the same time (each its own sandboxes, database rows, worker and task queue;
// the time is spent waiting on the 300 ms, not computing); each CRM's two cases run in order.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { commerceDump, startProductionWorker } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const activityTimeouts = { heartbeat: '5 seconds' };

describe.each(CRMS_UNDER_TEST)('slow APIs with %s', { concurrent: true }, (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `slow-${kind}-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 200, seed: 23 });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm)).id;
    worker = await startProductionWorker(database, { taskQueue });
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: '*', latencyMs: 300 });
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'POST /oauth2/token', latencyMs: 300 });
    await sandboxes.crm.faults({ latencyMs: 300 });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  /** Every activity of the run started once: none timed out, none ran a second attempt beside the first. */
  async function expectOneAttemptEach(workflowId: string) {
    const history = await new Client({ connection: worker.connection }).workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const started = events.filter((event) => event.activityTaskStartedEventAttributes);
    expect(started.length).toBeGreaterThan(0);
    expect(started.map((event) => event.activityTaskStartedEventAttributes!.attempt)).toEqual(started.map(() => 1));
    expect(events.filter((event) => event.activityTaskTimedOutEventAttributes)).toEqual([]);
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
  }

  describe('in order', { concurrent: false }, () => {
    it('a full sync with 300 ms on every call completes exactly, each activity in one attempt', async () => {
      const workflowId = `slow-full-${kind}-${Date.now()}`;
      const progress: SyncProgress = await new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, {
        taskQueue,
        workflowId,
        args: [{ connectionId, activityTimeouts }],
      });
      expect(progress.finished).toBe(true);
      await expectOneAttemptEach(workflowId);
      await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce);
    }, 300_000);

    it('a notification run with 300 ms on every call syncs what the feed names, each activity in one attempt', async () => {
      const client = new Client({ connection: worker.connection });
      // The feed's position starts at its end; then changes arrive.
      await client.workflow.execute(WORKFLOW_TYPES.realtimeSync, { taskQueue, workflowId: `slow-feed-start-${kind}-${Date.now()}`, args: [{ connectionId, activityTimeouts }] });
      const { changes } = (await (await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 40 })).json()) as { changes: { entityType: string; id: string }[] };
      const workflowId = `slow-feed-${kind}-${Date.now()}`;
      const totals = await client.workflow.execute(WORKFLOW_TYPES.realtimeSync, { taskQueue, workflowId, args: [{ connectionId, activityTimeouts }] });
      expect(totals.events).toBeGreaterThanOrEqual(changes.length);
      await expectOneAttemptEach(workflowId);
      // A run that found events is recorded in sync_runs like the other kinds of run.
      const { rows } = await database.pool.query(`SELECT kind, status, counts, started_at, finished_at FROM sync_runs WHERE id LIKE $1`, [`${workflowId}/%`]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: 'realtime', status: 'completed', counts: { events: totals.events } });
      // Its row, written only as it ended, starts when the workflow started (as Temporal says), so it
      // lasts as long as the pass did: several calls at 300 ms each, not the 0 s of a row started at its end.
      const { startTime } = await client.workflow.getHandle(workflowId).describe();
      expect((rows[0].started_at as Date).getTime()).toBe(startTime.getTime());
      expect((rows[0].finished_at as Date).getTime() - (rows[0].started_at as Date).getTime()).toBeGreaterThan(600);
      // Every changed offer reads in the CRM as it now reads on the commerce side.
      const offers = new Map((await commerceDump(sandboxes.commerce, 'offers')).map((offer) => [offer.id, offer]));
      const opportunities = await sandboxes.crm.keyed('offer');
      const name = { salesforce: 'Name', hubspot: 'dealname', dynamics: 'name' }[kind];
      const changedOffers = [...new Set(changes.filter((change) => change.entityType.toUpperCase() === 'OFFER').map((change) => change.id))];
      expect(changedOffers.length).toBeGreaterThan(0);
      for (const id of changedOffers) expect(opportunities.get(id)?.fields[name], `offer ${id}`).toBe(offers.get(id)!.name);
    }, 300_000);
  });
});
