// Issue #27 gaps (reading c) through the Dynamics connector: a write of the timeline that meets a task
// Dataverse keeps read-only (completed by the sync when made, or canceled by a seller) leaves it as it
// was closed and answers the record as written with its GUID, by GUID (linked) and by key (a replay whose
// link was lost); an open task takes the event's new words. Against the Dataverse sandbox, which refuses
// an update of a closed task's columns as Dataverse does ("Cannot update Closed or Cancelled Activity").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../crm/connector.ts';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let sandbox: DynamicsSandbox;
let crm: CrmConnector;
const guids = new Map<string, string>();
const EVENTS = { completed: "ev-O'Brien \"done\"", open: "ev-open ü 'q'", canceled: 'ev-canceled ☃' };
const task = (eventId: string, subject: string, state?: 'Open' | 'Completed') => ({ sourceId: eventId, externalIdField: 'ccs_commerceeventid', externalId: eventId, fields: { subject, ...(state && { statecode: state }) } });
const subjects = async () => Object.fromEntries((await crm.findWhereIn('task', 'ccs_commerceeventid', Object.values(EVENTS), ['ccs_commerceeventid', 'subject', 'statecode'])).map((row) => [row.ccs_commerceeventid, [row.subject, row.statecode]]));

beforeAll(async () => {
  sandbox = await startDynamicsSandbox({ requestsPer300s: 1_000_000, keyActivationMs: 0 });
  const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
  expect((await setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, DYNAMICS_TABLES, { keyWaitMs: 10_000, keyPollMs: 20 })).problems).toEqual([]);
  crm = createDynamicsConnector({ orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, apiVersion: '9.2', concurrency: 4 }, { crmClientSecret: sandbox.clientSecret });
  const made = await crm.upsert('task', [task(EVENTS.completed, 'Offer accepted', 'Completed'), task(EVENTS.open, 'Usage report failed', 'Open'), task(EVENTS.canceled, 'Referral to answer', 'Open')]);
  for (const result of made) {
    if (!result.ok) throw new Error(JSON.stringify(result));
    guids.set(result.sourceId, result.crmId);
  }
  await clientFor(sandbox).update({ collection: 'tasks', key: guids.get(EVENTS.canceled)!, data: { statecode: 2, statuscode: 6 } });
});
afterAll(async () => sandbox?.stop());

describe('the timeline on Dynamics meets closed tasks', () => {
  it('by GUID: closed tasks keep their words and answer with their GUID; the open one takes the new words', async () => {
    const results = await crm.upsert('task', Object.values(EVENTS).map((eventId) => ({ ...task(eventId, `Changed: ${eventId}`), crmId: guids.get(eventId)! })));
    expect(results).toEqual(Object.values(EVENTS).map((eventId) => ({ sourceId: eventId, ok: true, crmId: guids.get(eventId), created: false })));
    expect(await subjects()).toEqual({ [EVENTS.completed]: ['Offer accepted', 1], [EVENTS.open]: [`Changed: ${EVENTS.open}`, 0], [EVENTS.canceled]: ['Referral to answer', 2] });
  });

  it('by key after a lost link, with the state it was made with: the same, and no second task', async () => {
    const results = await crm.upsert('task', [task(EVENTS.completed, 'Replayed', 'Completed'), task(EVENTS.open, 'Replayed', 'Open'), task(EVENTS.canceled, 'Replayed', 'Open')]);
    expect(results.map((result) => result.ok && result.crmId)).toEqual(Object.values(EVENTS).map((eventId) => guids.get(eventId)));
    expect(await subjects()).toEqual({ [EVENTS.completed]: ['Offer accepted', 1], [EVENTS.open]: ['Replayed', 0], [EVENTS.canceled]: ['Referral to answer', 2] });
    expect(await crm.findWhereIn('task', 'statecode', ['0', '1', '2'], ['ccs_commerceeventid'])).toHaveLength(3);
  });

  it('reads each task once a write: the closed-task check and the state handling share one read', async () => {
    const fresh = ['ev-new-1', 'ev-new-2'];
    await control(sandbox, 'DELETE', '/calls');
    const made = await crm.upsert('task', fresh.map((eventId) => task(eventId, 'New event', 'Completed')));
    expect(made.every((result) => result.ok && result.created)).toBe(true);
    const calls = await control(sandbox, 'GET', '/calls');
    // One read of the tasks by their key (they are new), then the $batch that makes them.
    expect(Object.entries(calls).filter(([kind]) => kind.startsWith('GET tasks')).reduce((sum, [, count]) => sum + Number(count), 0)).toBe(1);
  });
});
