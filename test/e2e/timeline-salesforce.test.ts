// The timeline on Salesforce end to end (issue #27 section 1): real Temporal, real PostgreSQL, the
// production worker as a process that is SIGKILLed mid-write, the commerce sandbox's event history (its
// base time 15 days ago, so the feed holds events of the last 30 days and older ones) and the Salesforce
// sandbox. Every business event of the last 30 days about a synced record becomes exactly one Task on
// that record, owned by its owner; action items are open with a due date, the rest completed; audit-only
// events and events older than the backfill's 30 days are not written; a second backfill writes nothing;
// the incremental sync then writes the events of new changes.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { backfillWorkflowId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

const DAY_MS = 86_400_000;
const PARENTS = [
  ['BUYER', 'buyer', 'Account', 'Commerce_Buyer_Id__c'],
  ['OFFER', 'offer', 'Opportunity', 'Commerce_Offer_Id__c'],
  ['ENTITLEMENT', 'entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c'],
  ['REFERRAL', 'referral', 'Cosell_Referral__c', 'Commerce_Referral_Id__c'],
] as const;

const TYPES = new Set(PARENTS.map(([type]) => type as string));

type FeedEvent = { eventID: string; entityType: string; entityID: string; title: string; message: string; isActionItem: boolean; channels: string[]; requireAudit: boolean; version?: number; timestamp: string };

/** The whole feed, read from the commerce sandbox's API as any client would (A5: limit, offset, nextOffset). */
async function feed(commerce: CommerceSandbox): Promise<FeedEvent[]> {
  const probe = probeSandbox(commerce);
  const events: FeedEvent[] = [];
  for (let offset: number | undefined = 0; offset !== undefined; ) {
    const page = (await probe.api(`/org/${commerce.organizationId}/notificationEvent`, { query: { limit: 1000, offset } })).json as { notificationEvents: FeedEvent[]; nextOffset?: number };
    events.push(...page.notificationEvents);
    offset = page.nextOffset;
  }
  return events;
}

describe('timeline: notification events -> Salesforce Tasks (real Temporal, real PostgreSQL, a SIGKILLed worker)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];
  // The generated history spans the 30 days before the base time: 15 days ago puts half of it out of the backfill's reach.
  const baseTime = new Date(Math.floor((Date.now() - 15 * 86_400_000) / 1000) * 1000).toISOString();

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('salesforce', { entitlements: 250, seed: 27, baseTime });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('writes each event of the last 30 days once, on the right record and owner, across a SIGKILL and a second backfill', { timeout: 600_000 }, async () => {
    const salesforce = sandboxes.crm.salesforce!;
    const entities = ['buyer', 'offer', 'entitlement', 'referral', 'timeline'] as const;
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: [...entities] });
    const taskQueue = `timeline-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    const client = new Client({ connection });
    const backfill = async (only: string[], suffix: string) => {
      const request = { connectionId, entities: only };
      return client.workflow.start(WORKFLOW_TYPES.backfill, { taskQueue, workflowId: `${backfillWorkflowId(request as never)}-${suffix}`, args: [{ ...request, activityTimeouts: { heartbeat: '10 seconds' } }] });
    };

    // The records first; then some of them change hands in Salesforce (three sellers own every other one).
    expect((await (await backfill(['buyer', 'offer', 'entitlement', 'referral'], 'records')).result()).finished).toBe(true);
    const { conn } = await clientCredentialsConnection(salesforce);
    const sellers: string[] = [];
    for (const name of ['Ada Seller', 'Ben Seller', 'Cy Seller']) sellers.push(((await conn.sobject('User').create({ Username: `${name.split(' ')[0]!.toLowerCase()}@seller.example`, Name: name })) as any).id);
    const recordOf = new Map<string, { id: string; owner: string }>(); // ENTITYTYPE|commerce id -> the record
    for (const [type, , object, key] of PARENTS) {
      const rows = await salesforceDump(salesforce, object);
      const moved = rows.filter((_, index) => index % 2 === 0).map((row, index) => ({ Id: row.Id, OwnerId: sellers[index % sellers.length]! }));
      for (let start = 0; start < moved.length; start += 200) await conn.sobject(object).update(moved.slice(start, start + 200));
      const owners = new Map(moved.map((row) => [row.Id, row.OwnerId]));
      for (const row of rows) recordOf.set(`${type}|${row[key]}`, { id: row.Id, owner: owners.get(row.Id) ?? row.OwnerId });
    }

    // What should be written, by hand from the feed: the business events (not audit-only) of the last 30
    // days about a record Salesforce holds. Events older than that exist and must not be written.
    const now = Date.now();
    const events = await feed(sandboxes.commerce);
    const business = events.filter((event) => recordOf.has(`${event.entityType}|${event.entityID}`) && !(event.channels.length === 0 && event.requireAudit) && [undefined, 0, 1].includes(event.version));
    const expected = business.filter((event) => Date.parse(event.timestamp) >= now - 30 * DAY_MS);
    const older = business.filter((event) => Date.parse(event.timestamp) < now - 30 * DAY_MS - 60_000);
    expect(expected.length, 'events of the last 30 days').toBeGreaterThanOrEqual(200);
    expect(older.length, 'older business events the backfill must leave out').toBeGreaterThan(0);
    expect(expected.filter((event) => event.isActionItem).length, 'action items among them').toBeGreaterThan(0);
    expect(events.some((event) => event.channels.length === 0 && event.requireAudit && recordOf.has(`${event.entityType}|${event.entityID}`) && Date.parse(event.timestamp) >= now - 30 * DAY_MS), 'audit-only events to leave out').toBe(true);

    // The timeline's backfill, its writes slowed down so the worker is killed in the middle of them.
    await fetch(`${salesforce.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: '*', latencyMs: 250 }) });
    const handle = await backfill(['timeline'], 'timeline');
    let tasksAtKill = 0;
    for (;;) {
      tasksAtKill = (await salesforceDump(salesforce, 'Task')).length;
      if (tasksAtKill > 0) break;
      await sleep(50);
    }
    expect(tasksAtKill, 'killed between two writes of the backfill').toBeLessThan(expected.length);
    const victim = workers.at(-1)!;
    victim.kill('SIGKILL');
    await waitForExit(victim);
    await fetch(`${salesforce.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: '*', latencyMs: 0 }) });
    workers.push(await startWorkerProcess('w1', env));
    const result = await handle.result();
    expect(result.finished).toBe(true);
    expect(result.totals.failed).toBe(0);
    // The kill hit the running write: the activity was retried after its heartbeat timed out.
    const { events: history } = await handle.fetchHistory();
    expect(history!.some((event) => Number(event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1), 'a retried attempt').toBe(true);

    const check = async () => {
      const tasks = await salesforceDump(salesforce, 'Task');
      const byEvent = new Map(tasks.map((task) => [task.Commerce_Event_Id__c, task]));
      expect(byEvent.size, 'no event twice').toBe(tasks.length);
      expect([...byEvent.keys()].sort()).toEqual(expected.map((event) => event.eventID).sort());
      for (const event of expected) {
        const task = byEvent.get(event.eventID)!;
        const record = recordOf.get(`${event.entityType}|${event.entityID}`)!;
        const due = new Date(Date.parse(`${event.timestamp.slice(0, 10)}T00:00:00Z`) + 3 * DAY_MS).toISOString().slice(0, 10);
        expect({ WhatId: task.WhatId, OwnerId: task.OwnerId, Subject: task.Subject, Description: task.Description }, event.eventID).toEqual({ WhatId: record.id, OwnerId: record.owner, Subject: event.title, Description: event.message });
        expect([task.Status, task.ActivityDate], event.eventID).toEqual(event.isActionItem ? ['Not Started', due] : ['Completed', event.timestamp.slice(0, 10)]);
      }
    };
    await check();

    // A second backfill finds every event already written: nothing more, nothing twice.
    expect((await (await backfill(['timeline'], 'again')).result()).finished).toBe(true);
    await check();

    // Live: the incremental sync (parents first, then the feed from its last read) writes the events of
    // new changes, on records it has just made too (a new offer's Opportunity).
    const incremental = () => client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `timeline-live-${connectionId}-${Date.now()}`, args: [{ connectionId }] });
    await incremental();
    const before = new Set((await salesforceDump(salesforce, 'Task')).map((task) => task.Commerce_Event_Id__c));
    const probe = probeSandbox(sandboxes.commerce);
    const driven: { eventID: string | null }[] = (await probe.control('POST', '/changes', { count: 12, kinds: ['cancellation', 'newOffer', 'offerStatus', 'usage', 'usageReportFailed'] })).json.changes;
    await incremental();
    const fresh = (await feed(sandboxes.commerce)).filter((event) => driven.some((change) => change.eventID === event.eventID) && TYPES.has(event.entityType) && !(event.channels.length === 0 && event.requireAudit));
    expect(fresh.length, 'business events of the driven changes').toBeGreaterThan(3);
    expect(fresh.some((event) => event.isActionItem), 'an action item among them').toBe(true);
    const tasks = new Map((await salesforceDump(salesforce, 'Task')).map((task) => [task.Commerce_Event_Id__c, task]));
    expect([...tasks.keys()].filter((id) => !before.has(id)).sort()).toEqual(fresh.map((event) => event.eventID).sort());
    for (const event of fresh) {
      const [, , object, key] = PARENTS.find(([type]) => type === event.entityType)!;
      const record = (await salesforceDump(salesforce, object)).find((row) => row[key] === event.entityID);
      expect({ WhatId: tasks.get(event.eventID)!.WhatId, OwnerId: tasks.get(event.eventID)!.OwnerId, Status: tasks.get(event.eventID)!.Status }, event.eventID).toEqual({ WhatId: record.Id, OwnerId: record.OwnerId, Status: event.isActionItem ? 'Not Started' : 'Completed' });
    }
  });
});
