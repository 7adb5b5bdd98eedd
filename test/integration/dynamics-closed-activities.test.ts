// Issue #27 gaps: Dataverse keeps completed and canceled tasks read-only ("Cannot update Closed or
// Cancelled Activity"), so a write of the timeline that meets a closed task leaves it as it is
// (crm/dynamics/closed-activities.ts): by GUID (linked) or by its key (a replay whose link was lost),
// the closed rows are answered as written with their GUID and left out of the write; open and missing
// rows are written. Against the Dataverse sandbox, with tasks the connector made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../crm/connector.ts';
import { createClosedActivities } from '../../crm/dynamics/closed-activities.ts';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';

let sandbox: DynamicsSandbox;
let crm: CrmConnector;
const guids = new Map<string, string>();
// Key values a query must quote and escape.
const EVENTS = { completed: "ev-O'Brien \"done\"", open: "ev-open ü 'q'", canceled: 'ev-canceled ☃', missing: "ev-never-made ''" };
const task = (eventId: string, subject: string) => ({ sourceId: eventId, externalIdField: 'ccs_commerceeventid', externalId: eventId, fields: { subject } });

beforeAll(async () => {
  sandbox = await startDynamicsSandbox({ requestsPer300s: 1_000_000, keyActivationMs: 0 });
  const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
  const report = await setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, DYNAMICS_TABLES, { keyWaitMs: 10_000, keyPollMs: 20 });
  expect(report.problems).toEqual([]);
  crm = createDynamicsConnector({ orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, apiVersion: '9.2', concurrency: 4 }, { crmClientSecret: sandbox.clientSecret });
  const made = await crm.upsert('task', [
    { ...task(EVENTS.completed, 'Offer accepted'), fields: { subject: 'Offer accepted', statecode: 'Completed' } },
    { ...task(EVENTS.open, 'Usage report failed'), fields: { subject: 'Usage report failed', statecode: 'Open' } },
    { ...task(EVENTS.canceled, 'Referral to answer'), fields: { subject: 'Referral to answer', statecode: 'Open' } },
  ]);
  for (const result of made) {
    if (!result.ok) throw new Error(JSON.stringify(result));
    guids.set(result.sourceId, result.crmId);
  }
  // A seller cancels one task (SetState as an update of statecode/statuscode).
  await clientFor(sandbox).update({ collection: 'tasks', key: guids.get(EVENTS.canceled)!, data: { statecode: 2, statuscode: 6 } });
  const states = await crm.findWhereIn('task', 'ccs_commerceeventid', Object.values(EVENTS), ['ccs_commerceeventid', 'statecode']);
  expect(Object.fromEntries(states.map((row) => [row.ccs_commerceeventid, row.statecode]))).toEqual({ [EVENTS.completed]: 1, [EVENTS.open]: 0, [EVENTS.canceled]: 2 });
});
afterAll(async () => sandbox?.stop());

describe('closed tasks are left as they are', () => {
  const closed = () => createClosedActivities({ whereIn: (object, field, values, fields) => crm.findWhereIn(object, field, values, fields) });

  it('by key (links lost): the completed and the canceled task are answered with their GUID, the open and the missing one are written', async () => {
    const items = Object.values(EVENTS).map((eventId) => task(eventId, `New words for ${eventId}`));
    const split = await closed().split('task', items);
    expect(split.writable.map((item) => item.sourceId)).toEqual([EVENTS.open, EVENTS.missing]);
    expect(split.left).toEqual([
      { sourceId: EVENTS.completed, ok: true, crmId: guids.get(EVENTS.completed), created: false },
      { sourceId: EVENTS.canceled, ok: true, crmId: guids.get(EVENTS.canceled), created: false },
    ]);
  });

  it('by GUID (linked): the same, and a GUID whose task is gone is written (its update answers for itself)', async () => {
    const gone = '00000000-0000-0000-0000-0000000000ee';
    const items = [...guids].map(([eventId, crmId]) => ({ ...task(eventId, 'Changed'), crmId: crmId.toUpperCase() })).concat({ ...task('ev-gone', 'Changed'), crmId: gone });
    const split = await closed().split('task', items);
    expect(split.writable.map((item) => item.sourceId)).toEqual([EVENTS.open, 'ev-gone']);
    expect(split.left.map((result) => result.sourceId)).toEqual([EVENTS.completed, EVENTS.canceled]);
  });

  it('leaves every other table alone, without reading it', async () => {
    const items = [{ sourceId: 'o1', externalIdField: 'ccs_commerceofferid', externalId: 'o1', fields: { name: 'Offer' } }];
    let reads = 0;
    const split = await createClosedActivities({ whereIn: async () => (reads++, []) }).split('opportunity', items);
    expect(split).toEqual({ writable: items, left: [] });
    expect(reads).toBe(0);
  });
});
