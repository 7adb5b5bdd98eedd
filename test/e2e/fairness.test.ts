// Issue #29 part 3, reduced: one connection's backfill does not hold the other connections' syncs back
// (real Temporal with the priority and fairness matching config, real PostgreSQL, one production worker).
// Four connections share the worker: the first backfills a few thousand entitlements into a Salesforce org
// that answers slowly, so the backfill runs for minutes; while it runs, one commerce change on each of the
// other three (HubSpot, Dynamics, Salesforce) must reach its CRM by that connection's scheduled
// notification pass. The backfill and the scheduled passes carry their priority and the connection as
// fairness key into Temporal (start events and the activities' effective priority).
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { ENTITIES } from '../../mappings/types.ts';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { connectionScheduleIds, ensureConnectionSchedules, realtimeScheduleId, startBackfill, syncScheduleId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startCrmSandbox, type CrmUnderTest, type CrmUnderTestKind } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const OTHERS: CrmUnderTestKind[] = ['hubspot', 'dynamics', 'salesforce'];
const until = async <T>(what: string, read: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

describe('a backfill beside other connections on one worker (real Temporal, real PostgreSQL)', () => {
  const taskQueue = `fairness-${Date.now()}`;
  let database: TestDatabase;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connection: Connection;
  let client: Client;
  const sandboxes: { stop(): Promise<void> }[] = [];
  const connectionIds: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    worker = await startProductionWorker(database, { taskQueue });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  });
  afterAll(async () => {
    for (const connectionId of connectionIds) for (const id of connectionScheduleIds(connectionId)) await client?.schedule.getHandle(id).delete().catch(() => {});
    await worker?.stop();
    await connection?.close();
    for (const sandbox of sandboxes) await sandbox.stop();
    await database?.drop();
  });

  it("syncs the other connections' changes while the backfill runs, each start carrying its priority and fairness key", { timeout: 180_000 }, async () => {
    // The backfilling connection: 3,000 entitlements (about 9,000 records) in pages of 100, into an org
    // that takes 150 ms over every call.
    const bigCommerce = await startCommerceSandbox({ entitlements: 3000, seed: 61, organizationId: 'org-big', clientId: 'seller-big', clientSecret: 'seller-big-secret' });
    sandboxes.push(bigCommerce);
    const bigCrm = await startCrmSandbox('salesforce');
    sandboxes.push(bigCrm);
    await bigCrm.faults({ latencyMs: 150 });
    const big = (await createCrmConnection(database, bigCommerce, bigCrm, { name: 'fairness-big', pageSize: 100 })).id;
    connectionIds.push(big);

    // The others: small organizations, synced once, then on their schedules (notifications every 2 s).
    const others: { kind: CrmUnderTestKind; commerce: CommerceSandbox; crm: CrmUnderTest; connectionId: string }[] = [];
    for (const [index, kind] of OTHERS.entries()) {
      const commerce = await startCommerceSandbox({ entitlements: 20, seed: 70 + index, organizationId: `org-${index + 2}`, clientId: `seller-${index + 2}`, clientSecret: `seller-${index + 2}-secret` });
      const crm = await startCrmSandbox(kind);
      sandboxes.push(commerce, crm);
      const { id } = await createCrmConnection(database, commerce, crm, { name: `fairness-${kind}` });
      connectionIds.push(id);
      others.push({ kind, commerce, crm, connectionId: id });
    }
    await Promise.all(others.map(({ connectionId }) => client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `fairness-first-${connectionId}`, args: [{ connectionId }] })));
    for (const connectionId of connectionIds) {
      await ensureConnectionSchedules(client, { connectionId, every: '1h', realtimeEvery: '2s', reconcileEvery: '24h', cosellEvery: '1h', taskQueue });
    }
    // A notification pass's first tick stores the feed's end; changes made after it are its to carry.
    for (const { connectionId } of others) {
      await until(`the notification feed position of ${connectionId}`, async () => (await database.pool.query(`SELECT 1 FROM sync_cursors WHERE connection_id = $1 AND entity = 'notification-feed'`, [connectionId])).rowCount);
    }

    const backfill = await startBackfill(client, taskQueue, { connectionId: big, entities: [...ENTITIES] });
    // The backfill is under way (it has written pages) before the others' changes are made.
    await until('the backfill to write its first pages', async () => (await database.pool.query(`SELECT count(*)::int AS n FROM record_links WHERE connection_id = $1`, [big])).rows[0].n > 0);

    for (const other of others) {
      const answer = await fetch(`${other.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: ['entitlementStatus'] }) });
      const { changes } = (await answer.json()) as { changes: { id: string; entitlementID?: string; lastUpdateTime: string }[] };
      expect(changes.length, `a change on ${other.kind}'s organization`).toBe(1);
      const change = changes[0]!;
      const entitlementId = change.entitlementID ?? change.id;
      // The CRM holds the change: its link records the CRM's answer for the changed version.
      await until(`the ${other.kind} connection's change to reach its CRM`, async () => {
        const { rows } = await database.pool.query(`SELECT 1 FROM record_links WHERE connection_id = $1 AND entity = 'entitlement' AND source_id = $2 AND source_version >= $3`, [other.connectionId, entitlementId, new Date(Date.parse(change.lastUpdateTime) - 1)]);
        return rows.length > 0;
      });
      const stored = await other.crm.keyed('entitlement');
      expect(stored.has(entitlementId), `${other.kind} holds entitlement ${entitlementId}`).toBe(true);
      // ... while the backfill still runs.
      expect((await backfill.describe()).status.name, `the backfill when ${other.kind}'s change arrived`).toBe('RUNNING');
    }

    // Priorities as Temporal holds them: the backfill low, with its connection as fairness key, and its
    // running page activity with the same.
    const described = await backfill.describe();
    expect(described.raw.workflowExecutionInfo?.priority).toMatchObject({ priorityKey: 4, fairnessKey: big });
    const pending = await until('a backfill activity to be pending', async () => {
      const activities = (await backfill.describe()).raw.pendingActivities ?? [];
      return activities.length > 0 ? activities : undefined;
    });
    expect(pending[0]!.priority).toMatchObject({ priorityKey: 4, fairnessKey: big });
    // Each other connection's scheduled notification run high, with its own connection as fairness key,
    // on its start and on every activity it scheduled.
    for (const { connectionId } of others) {
      const schedule = await client.schedule.getHandle(realtimeScheduleId(connectionId)).describe();
      const recent = schedule.info.recentActions.at(-1)!.action.workflow;
      const events = (await client.workflow.getHandle(recent.workflowId, recent.firstExecutionRunId).fetchHistory()).events ?? [];
      expect(events[0]!.workflowExecutionStartedEventAttributes?.priority).toMatchObject({ priorityKey: 2, fairnessKey: connectionId });
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.priority);
      expect(scheduled.length).toBeGreaterThan(0);
      for (const priority of scheduled) expect(priority).toMatchObject({ priorityKey: 2, fairnessKey: connectionId });
    }
    await backfill.cancel();

    // The backfill held one activity slot at a time: no activity was scheduled before the last had closed
    // (until the cancellation, whose clean-up activities run beside the page being cancelled).
    const events = (await client.workflow.getHandle(backfill.workflowId).fetchHistory()).events ?? [];
    let open = 0;
    let most = 0;
    for (const event of events) {
      if (event.workflowExecutionCancelRequestedEventAttributes) break;
      if (event.activityTaskScheduledEventAttributes) most = Math.max(most, (open += 1));
      if (event.activityTaskCompletedEventAttributes || event.activityTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes || event.activityTaskCanceledEventAttributes) open -= 1;
    }
    expect(most).toBe(1);
  });
  it('gives a schedule made before priorities existed its priority when the connection is ensured again', async () => {
    const connectionId = `before-priorities-${Date.now()}`;
    connectionIds.push(connectionId);
    // As ensureSchedule made it before this change: no priority on the action.
    await client.schedule.create({
      scheduleId: syncScheduleId(connectionId),
      spec: { intervals: [{ every: '1h' }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.incrementalSync, workflowId: `sync-${connectionId}`, taskQueue, args: [{ connectionId }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      state: { paused: true },
    });
    expect((await client.schedule.getHandle(syncScheduleId(connectionId)).describe()).action.priority?.priorityKey, "no priority key before").toBeFalsy();
    const outcome = await ensureConnectionSchedules(client, { connectionId, every: '1h', realtimeEvery: '1h', cosellEvery: '1h', taskQueue, paused: true });
    expect(outcome.incremental).toBe('updated');
    const described = await client.schedule.getHandle(syncScheduleId(connectionId)).describe();
    expect(described.action.priority).toMatchObject({ priorityKey: 2, fairnessKey: connectionId });
    // Still paused: the update carries the action, not the state.
    expect(described.state.paused).toBe(true);
  });
});
