// The timeline on HubSpot and Dynamics end to end (issue #27 section 1), as timeline-salesforce.test.ts
// does it for Salesforce: real Temporal, real PostgreSQL, the production worker as a process SIGKILLed in
// the middle of the timeline's writes, the commerce sandbox's event history (base time 15 days ago, so the
// feed holds events of the last 30 days and older ones) and the CRM's sandbox. Every business event of
// the last 30 days about a synced record becomes exactly one activity on that record (HubSpot: a task
// associated to the deal, entitlement or company; Dynamics: a task regarding the opportunity, entitlement,
// referral or account), owned by the record's owner; action items open with their due date, the rest
// completed; audit-only and older events are not written; a second backfill writes nothing.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { SELLERS } from '../../sandbox/dynamics/users.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { backfillWorkflowId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor, type CrmUnderTest } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';
import { fetchToken } from '../sandbox/dynamics-helpers.ts';

const DAY_MS = 86_400_000;
type FeedEvent = { eventID: string; entityType: string; entityID: string; title: string; message: string; isActionItem: boolean; channels: string[]; requireAudit: boolean; version?: number; timestamp: string };
/** The record an event lands on: its CRM id, owner (none: HubSpot's unowned record) and the object it is. */
type Target = { id: string; owner?: string; object: string };
/** What the CRM holds for one event's activity, in words both CRMs share. */
type Activity = { eventId: string; target?: string; targetObject?: string; owner?: string; subject: string; body?: string; open: boolean; day: string };

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

/** Per CRM: the parents' records (half of them moved to sellers first) and the activities written. */
type Side = { moveOwners(): Promise<Map<string, Target>>; activities(): Promise<Activity[]> };

function hubspotSide(crm: CrmUnderTest): Side {
  const hubspot = crm.hubspot!;
  const parents = [['BUYER', 'companies', 'companies', 'commerce_buyer_id'], ['OFFER', 'deals', 'deals', 'commerce_offer_id'], ['ENTITLEMENT', 'marketplace_entitlement', 'p_marketplace_entitlement', 'entitlement_id'], ['REFERRAL', 'deals', 'deals', 'commerce_referral_id']] as const;
  const owners = ['71000001', '71000002', '71000003'];
  return {
    async moveOwners() {
      const targets = new Map<string, Target>();
      for (const [type, object, apiType, key] of parents) {
        const rows = ((await hubspotControl(hubspot, 'GET', `/records/${object}`)) as { id: string; properties: Record<string, string> }[]).filter((row) => row.properties[key]);
        const moved = rows.filter((_, index) => index % 2 === 0).map((row, index) => ({ id: row.id, properties: { hubspot_owner_id: owners[index % owners.length]! } }));
        for (let start = 0; start < moved.length; start += 100) {
          const answer = await fetch(`${hubspot.baseUrl}/crm/v3/objects/${apiType}/batch/update`, { method: 'POST', headers: { authorization: `Bearer ${hubspot.accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ inputs: moved.slice(start, start + 100) }) });
          expect(answer.status).toBe(200);
        }
        const ownerOf = new Map(moved.map((row) => [row.id, row.properties.hubspot_owner_id]));
        for (const row of rows) targets.set(`${type}|${row.properties[key]}`, { id: row.id, owner: ownerOf.get(row.id) ?? row.properties.hubspot_owner_id, object });
      }
      return targets;
    },
    async activities() {
      const tasks = (await hubspotControl(hubspot, 'GET', '/records/tasks')) as { id: string; properties: Record<string, string> }[];
      const links = ((await hubspotControl(hubspot, 'GET', '/associations')) as { fromType: string; fromId: string; toType: string; toId: string }[]).filter((link) => link.fromType === 'tasks');
      return tasks.map((task) => {
        const linked = links.filter((link) => link.fromId === task.id);
        return {
          eventId: task.properties.commerce_event_id!,
          ...(linked.length === 1 && { target: linked[0]!.toId, targetObject: linked[0]!.toType }),
          ...(linked.length > 1 && { target: `${linked.length} associations` }),
          owner: task.properties.hubspot_owner_id,
          subject: task.properties.hs_task_subject!,
          body: task.properties.hs_task_body,
          open: task.properties.hs_task_status === 'NOT_STARTED',
          day: task.properties.hs_timestamp!.slice(0, 10),
        };
      });
    },
  };
}

function dynamicsSide(crm: CrmUnderTest): Side {
  const dynamics = crm.dynamics!;
  const parents = [['BUYER', 'account', 'accounts', 'ccs_commercebuyerid'], ['OFFER', 'opportunity', 'opportunities', 'ccs_commerceofferid'], ['ENTITLEMENT', 'ccs_marketplaceentitlement', 'ccs_marketplaceentitlements', 'ccs_entitlementid'], ['REFERRAL', 'ccs_cosellreferral', 'ccs_cosellreferrals', 'ccs_commercereferralid']] as const;
  const rows = async (name: string): Promise<any[]> => {
    const body = await dynamicsControl(dynamics, 'GET', `/records/${name}`);
    return Array.isArray(body) ? body : (body.records ?? body.value);
  };
  return {
    async moveOwners() {
      const token = (await fetchToken(dynamics)).body.access_token as string;
      const targets = new Map<string, Target>();
      for (const [type, table, entitySet, key] of parents) {
        const all = (await rows(table)).filter((row) => row[key]);
        const ownerOf = new Map<string, string>();
        for (const [index, row] of all.entries()) {
          const id = String(row[`${table}id`]);
          if (index % 2 === 0) {
            const seller = SELLERS[(index / 2) % SELLERS.length]!.id;
            const answer = await fetch(`${dynamics.orgUrl}api/data/v9.2/${entitySet}(${id})`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': '*' }, body: JSON.stringify({ 'ownerid@odata.bind': `/systemusers(${seller})` }) });
            expect(answer.status).toBe(204);
            ownerOf.set(id, seller);
          }
          targets.set(`${type}|${row[key]}`, { id, owner: ownerOf.get(id) ?? row._ownerid_value, object: table });
        }
      }
      return targets;
    },
    async activities() {
      return (await rows('task')).map((task) => ({
        eventId: task.ccs_commerceeventid,
        // The control dumps lookups as the Web API reads them: _<column>_value and its logical name.
        target: task._regardingobjectid_value ?? undefined,
        targetObject: task['_regardingobjectid_value@Microsoft.Dynamics.CRM.lookuplogicalname'] ?? undefined,
        owner: task._ownerid_value ?? undefined,
        subject: task.subject,
        body: task.description ?? undefined,
        open: task.statecode === 0,
        day: String(task.statecode === 0 ? task.scheduledend : task.actualend).slice(0, 10),
      }));
    },
  };
}

// The two CRMs run side by side (concurrent suites): each has its own sandboxes, database, task queue and
// workers, and most of a run is waiting (worker starts, the slowed writes, the killed attempt's heartbeat timeout).
describe.concurrent.each(['hubspot', 'dynamics'] as const)('timeline on %s: notification events -> activities (real Temporal, real PostgreSQL, a SIGKILLed worker)', (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];
  const baseTime = new Date(Math.floor((Date.now() - 15 * DAY_MS) / 1000) * 1000).toISOString();

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 250, seed: 27, baseTime });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('writes each event of the last 30 days once, on the right record and owner, across a SIGKILL and a second backfill', { timeout: 600_000 }, async () => {
    const side = kind === 'hubspot' ? hubspotSide(sandboxes.crm) : dynamicsSide(sandboxes.crm);
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'offer', 'entitlement', 'referral', 'timeline'] });
    const taskQueue = `timeline-${kind}-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    const client = new Client({ connection });
    const backfill = async (only: string[], suffix: string) => {
      const request = { connectionId, entities: only };
      return client.workflow.start(WORKFLOW_TYPES.backfill, { taskQueue, workflowId: `${backfillWorkflowId(request as never)}-${suffix}`, args: [{ ...request, activityTimeouts: { heartbeat: '10 seconds' } }] });
    };

    // The records first; then half of them change hands in the CRM (sellers own every other one).
    expect((await (await backfill(['buyer', 'offer', 'entitlement', 'referral'], 'records')).result()).finished).toBe(true);
    const recordOf = await side.moveOwners();

    // What should be written, by hand from the feed: the business events (not audit-only) of the last 30
    // days about a record the CRM holds. Events older than that exist and must not be written.
    const now = Date.now();
    const events = await feed(sandboxes.commerce);
    const business = events.filter((event) => recordOf.has(`${event.entityType}|${event.entityID}`) && !(event.channels.length === 0 && event.requireAudit) && [undefined, 0, 1].includes(event.version));
    const expected = business.filter((event) => Date.parse(event.timestamp) >= now - 30 * DAY_MS);
    expect(expected.length, 'events of the last 30 days').toBeGreaterThanOrEqual(200);
    expect(business.some((event) => Date.parse(event.timestamp) < now - 30 * DAY_MS - 60_000), 'older business events the backfill must leave out').toBe(true);
    expect(expected.filter((event) => event.isActionItem).length, 'action items among them').toBeGreaterThan(0);
    expect(new Set(expected.map((event) => event.entityType)).size, 'events on each kind of record').toBe(4);

    // A fresh worker for the timeline on Dynamics: Dataverse's $batch size grows with each full answer a
    // connector gets (10, 40, 160, 640), and after the records' backfill one $batch would hold every task,
    // leaving no moment between two writes to kill it in. A new connector starts again at 10. (HubSpot's
    // batches stay at 100, so its first worker goes on.)
    if (kind === 'dynamics') {
      const first = workers.at(-1)!;
      first.kill('SIGKILL');
      await waitForExit(first);
      workers.push(await startWorkerProcess('w0-fresh', env));
    }
    // The timeline's backfill, its writes slowed down so the worker is killed in the middle of them.
    await sandboxes.crm.faults({ latencyMs: 250 });
    const handle = await backfill(['timeline'], 'timeline');
    let atKill = 0;
    for (;;) {
      atKill = (await side.activities()).length;
      if (atKill > 0) break;
      await sleep(50);
    }
    expect(atKill, 'killed between two writes of the backfill').toBeLessThan(expected.length);
    const victim = workers.at(-1)!;
    victim.kill('SIGKILL');
    await waitForExit(victim);
    await sandboxes.crm.clearFaults();
    workers.push(await startWorkerProcess('w1', env));
    const result = await handle.result();
    expect(result.finished).toBe(true);
    expect(result.totals.failed).toBe(0);
    const { events: history } = await handle.fetchHistory();
    expect(history!.some((event) => Number(event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1), 'a retried attempt').toBe(true);

    const check = async () => {
      const activities = await side.activities();
      const byEvent = new Map(activities.map((activity) => [activity.eventId, activity]));
      expect(byEvent.size, 'no event twice').toBe(activities.length);
      expect([...byEvent.keys()].sort()).toEqual(expected.map((event) => event.eventID).sort());
      for (const event of expected) {
        const activity = byEvent.get(event.eventID)!;
        const record = recordOf.get(`${event.entityType}|${event.entityID}`)!;
        const due = new Date(Date.parse(`${event.timestamp.slice(0, 10)}T00:00:00Z`) + 3 * DAY_MS).toISOString().slice(0, 10);
        expect({ target: activity.target, targetObject: activity.targetObject, owner: activity.owner, subject: activity.subject, body: activity.body }, event.eventID).toEqual({ target: record.id, targetObject: record.object, owner: record.owner, subject: event.title, body: event.message || undefined });
        expect([activity.open, activity.day], event.eventID).toEqual(event.isActionItem ? [true, due] : [false, new Date(event.timestamp).toISOString().slice(0, 10)]);
      }
    };
    await check();

    // A second backfill finds every event already written: nothing more, nothing twice.
    expect((await (await backfill(['timeline'], 'again')).result()).finished).toBe(true);
    await check();
  });
});
