// The timeline on HubSpot and Dynamics (issue #27 section 1), through each connector against its sandbox:
// 24 notification events (offer events on two deals/opportunities with different owners, buyer events on
// the company/account, action items among them) become 24 activities on the right records and owners;
// action items open with their due date, the others completed; written again with every link lost (a
// killed worker before its links were recorded) or by the linked ids, they stay 24. The placement (the
// parent's CRM id and owner) is read as flows/timeline.ts reads it: by the parent's id, with the mapping's
// parentRecord fields.
import { afterAll, describe, expect, it } from 'vitest';
import type { CrmConnector, UpsertItem } from '../../crm/connector.ts';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import type { TimelineEvent, TimelineMapping } from '../../mappings/canonical/timeline.ts';
import { timelineToDynamicsTask } from '../../mappings/dynamics/timeline.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { timelineToHubSpotTask } from '../../mappings/hubspot/timeline.ts';
import type { Entity } from '../../mappings/types.ts';
import { startDynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { SELLERS } from '../../sandbox/dynamics/users.ts';
import { startHubSpotSandbox } from '../../sandbox/hubspot/index.ts';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

type Parent = { entity: Entity; id: string; crmId: string; owner: string };
/** 24 events: 8 per parent; every third an action item. Day n of January 2026, 10:00 UTC. */
function events(parents: Parent[]): { event: TimelineEvent; parent: Parent }[] {
  return Array.from({ length: 24 }, (_, n) => {
    const parent = parents[n % 3]!;
    const action = n % 3 === 0 ? 'STATUS_CHANGED' : 'UPDATED';
    const day = String((n % 28) + 1).padStart(2, '0');
    const event = {
      eventID: `ev-${n}`,
      id: `ev-${n}`,
      entityType: parent.entity.toUpperCase(),
      entityID: parent.id,
      action,
      entityStatus: 'ACCEPTED',
      title: `Event ${n} on ${parent.id}`,
      message: `What happened to ${parent.id} (${n})`,
      isActionItem: n % 4 === 0,
      timestamp: `2026-01-${day}T10:00:00.000Z`,
      lastUpdateTime: `2026-01-${day}T10:00:00.000Z`,
      timeline: { parentEntity: parent.entity, parentId: parent.id, open: n % 4 === 0 },
    } as unknown as TimelineEvent;
    return { event, parent };
  });
}

/** As flows/timeline.ts places events: the parent's record by its CRM id, with its owner. */
async function placed(crm: CrmConnector, mapping: TimelineMapping, parentObject: (entity: Entity) => string, list: { event: TimelineEvent; parent: Parent }[]) {
  const { idField, ownerField } = mapping.parentRecord;
  const owners = new Map<string, string>();
  for (const entity of new Set(list.map(({ parent }) => parent.entity))) {
    const ids = [...new Set(list.filter(({ parent }) => parent.entity === entity).map(({ parent }) => parent.crmId))];
    for (const record of await crm.findWhereIn(parentObject(entity), idField, ids, [idField, ownerField!])) owners.set(String(record[idField]).toLowerCase(), String(record[ownerField!]));
  }
  return list.map(({ event, parent }) => ({ ...event, timeline: { ...event.timeline, parentCrmId: parent.crmId, ownerId: owners.get(parent.crmId.toLowerCase()) } }));
}

function items(mapping: TimelineMapping, placedEvents: TimelineEvent[]): UpsertItem[] {
  return placedEvents.map((event) => {
    const mapped = mapping.map(event, undefined);
    if (!mapped.ok) throw new Error(mapped.reason);
    return { sourceId: event.id, externalIdField: mapped.record.externalIdField, externalId: mapped.record.externalId, fields: mapped.record.fields };
  });
}

const dueDay = (n: number) => `2026-01-${String((n % 28) + 1 + 3).padStart(2, '0')}`;

describe('the timeline on HubSpot: one task per event, on its record, by its owner', () => {
  it('writes 24 events as 24 tasks associated to the right deal or company with its owner; again with links lost or kept, still 24', async () => {
    const sandbox = await startHubSpotSandbox({ searchPerSecond: 1000 });
    stops.push(() => sandbox.stop());
    const report = await setUpHubSpot({ baseUrl: sandbox.baseUrl, accessToken: sandbox.accessToken });
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['tasks.commerce_event_id']));
    const crm = createHubSpotConnector({ baseUrl: sandbox.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: sandbox.accessToken });
    const [deal1, deal2, company] = await crm.upsert('deals', [
      { sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'Offer 1', hubspot_owner_id: '71000001' } },
      { sourceId: 'o2', externalIdField: 'commerce_offer_id', externalId: 'o2', fields: { dealname: 'Offer 2', hubspot_owner_id: '71000002' } },
    ]).then(async (deals) => [...deals, ...(await crm.upsert('companies', [{ sourceId: 'b1', externalIdField: 'commerce_buyer_id', externalId: 'b1', fields: { name: 'Buyer 1', hubspot_owner_id: '71000003' } }]))]);
    const parents: Parent[] = [
      { entity: 'offer', id: 'o1', crmId: (deal1 as any).crmId, owner: '71000001' },
      { entity: 'offer', id: 'o2', crmId: (deal2 as any).crmId, owner: '71000002' },
      { entity: 'buyer', id: 'b1', crmId: (company as any).crmId, owner: '71000003' },
    ];
    const list = events(parents);
    const objectOf = (entity: Entity) => (entity === 'buyer' ? 'companies' : 'deals');
    const batch = items(timelineToHubSpotTask, await placed(crm, timelineToHubSpotTask, objectOf, list));
    const first = await crm.upsert('tasks', batch);
    expect(first.filter((result) => !result.ok)).toEqual([]);
    expect(first.every((result) => result.ok && result.created)).toBe(true);

    // Lost links (a SIGKILL before they were recorded): the same events again, by key only.
    const again = await crm.upsert('tasks', batch);
    expect(again.map((result) => result.ok && result.crmId)).toEqual(first.map((result) => result.ok && result.crmId));
    expect(again.some((result) => result.ok && result.created)).toBe(false);
    // Linked: by the ids the links hold.
    await crm.upsert('tasks', batch.map((item, i) => ({ ...item, crmId: (first[i] as any).crmId })));

    const api = async (path: string, body?: unknown) => (await fetch(`${sandbox.baseUrl}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${sandbox.accessToken}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<any>;
    const tasks = (await api('/crm/v3/objects/tasks?limit=100&properties=commerce_event_id,hs_task_status,hs_timestamp,hubspot_owner_id,hs_task_subject')).results;
    expect(tasks).toHaveLength(24);
    expect(new Set(tasks.map((task: any) => task.properties.commerce_event_id)).size).toBe(24);
    for (const task of tasks) {
      const n = Number(task.properties.commerce_event_id.slice(3));
      const parent = parents[n % 3]!;
      expect(task.properties.hubspot_owner_id, task.properties.commerce_event_id).toBe(parent.owner);
      expect(task.properties.hs_task_subject).toBe(`Event ${n} on ${parent.id}`);
      if (n % 4 === 0) expect([task.properties.hs_task_status, task.properties.hs_timestamp]).toEqual(['NOT_STARTED', `${dueDay(n)}T00:00:00.000Z`]);
      else expect([task.properties.hs_task_status, task.properties.hs_timestamp]).toEqual(['COMPLETED', `2026-01-${String((n % 28) + 1).padStart(2, '0')}T10:00:00.000Z`]);
      const to = objectOf(parent.entity);
      const associated = (await api(`/crm/v4/objects/tasks/${task.id}/associations/${to}`)).results.map((r: any) => r.toObjectId);
      expect(associated, task.properties.commerce_event_id).toEqual([parent.crmId]);
    }
  });
});

describe('the timeline on Dynamics: one task activity per event, regarding its record, owned by its owner', () => {
  it('writes 24 events as 24 tasks regarding the right opportunity or account with its owner; again with links lost or kept, still 24', async () => {
    const sandbox = await startDynamicsSandbox({ requestsPer300s: 1_000_000, keyActivationMs: 0 });
    stops.push(() => sandbox.stop());
    const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
    const report = await setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, DYNAMICS_TABLES, { keyWaitMs: 10_000, keyPollMs: 20 });
    expect(report.problems).toEqual([]);
    const crm = createDynamicsConnector({ orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, apiVersion: '9.2', concurrency: 4 }, { crmClientSecret: sandbox.clientSecret });
    const [ada, ben] = SELLERS;
    const opportunities = await crm.upsert('opportunity', [
      { sourceId: 'o1', externalIdField: 'ccs_commerceofferid', externalId: 'o1', fields: { name: 'Offer 1', ownerid: ada!.id } },
      { sourceId: 'o2', externalIdField: 'ccs_commerceofferid', externalId: 'o2', fields: { name: 'Offer 2', ownerid: ben!.id } },
    ]);
    const [account] = await crm.upsert('account', [{ sourceId: 'b1', externalIdField: 'ccs_commercebuyerid', externalId: 'b1', fields: { name: 'Buyer 1' } }]);
    expect([...opportunities, account].every((result) => result!.ok)).toBe(true);
    const whoAmI = String((await crm.findWhereIn('account', 'id', [(account as any).crmId], ['_ownerid_value']))[0]!._ownerid_value);
    const parents: Parent[] = [
      { entity: 'offer', id: 'o1', crmId: (opportunities[0] as any).crmId, owner: ada!.id },
      { entity: 'offer', id: 'o2', crmId: (opportunities[1] as any).crmId, owner: ben!.id },
      { entity: 'buyer', id: 'b1', crmId: (account as any).crmId, owner: whoAmI },
    ];
    const list = events(parents);
    const objectOf = (entity: Entity) => (entity === 'buyer' ? 'account' : 'opportunity');
    const batch = items(timelineToDynamicsTask, await placed(crm, timelineToDynamicsTask, objectOf, list));
    const first = await crm.upsert('task', batch);
    expect(first.filter((result) => !result.ok)).toEqual([]);

    const again = await crm.upsert('task', batch);
    expect(again.filter((result) => !result.ok)).toEqual([]);
    expect(again.map((result) => result.ok && result.crmId)).toEqual(first.map((result) => result.ok && result.crmId));
    await crm.upsert('task', batch.map((item, i) => ({ ...item, crmId: (first[i] as any).crmId })));

    const rows = await crm.findWhereIn('task', 'ccs_commerceeventid', list.map(({ event }) => event.eventID), ['ccs_commerceeventid', 'statecode', 'statuscode', 'scheduledend', '_regardingobjectid_value', '_ownerid_value', 'subject']);
    expect(rows).toHaveLength(24);
    // Every task of the organisation, whatever its key: no second one for any event.
    expect(await crm.findWhereIn('task', 'statecode', ['0', '1', '2'], ['ccs_commerceeventid'])).toHaveLength(24);
    for (const row of rows) {
      const n = Number(String(row.ccs_commerceeventid).slice(3));
      const parent = parents[n % 3]!;
      expect([row._regardingobjectid_value, row._ownerid_value], String(row.ccs_commerceeventid)).toEqual([parent.crmId.toLowerCase(), parent.owner.toLowerCase()]);
      if (n % 4 === 0) expect([row.statecode, row.statuscode, String(row.scheduledend).slice(0, 10)]).toEqual([0, 2, dueDay(n)]);
      else expect([row.statecode, row.statuscode]).toEqual([1, 5]);
    }
  });
});
