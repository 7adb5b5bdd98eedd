// HubSpot sandbox (issue #27 section 1): notes and tasks as HubSpot's guides describe them
// (docs/crm-wire-behaviour.md): hs_timestamp required, task status/priority options, the owner checked
// against the portal's owners (GET /crm/v3/owners), no unique-value property on activities (so no upsert
// by our own key), associations made with a create (type ids 214/190/216/192 and the custom object's)
// and read from both ends.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';

const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
let sandbox: HubSpotSandbox;
let client: Client;
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${sandbox.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${sandbox.accessToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
};

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ owners: [{ id: '501', email: 'ann@example.com', firstName: 'Ann', lastName: 'Owner', userId: 9001 }, { id: '502', email: 'bo@example.com', firstName: 'Bo', lastName: 'Owner', userId: 9002 }] });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
});
afterAll(async () => sandbox.stop());

describe('HubSpot sandbox: owners', () => {
  it('lists the portal owners and reads one by id or userId', async () => {
    const all = await api('GET', '/crm/v3/owners');
    expect(all.status).toBe(200);
    expect(all.body.results.map((o: any) => [o.id, o.email, o.userId])).toEqual([['501', 'ann@example.com', 9001], ['502', 'bo@example.com', 9002]]);
    expect((await api('GET', '/crm/v3/owners?email=BO@example.com')).body.results.map((o: any) => o.id)).toEqual(['502']);
    expect((await api('GET', '/crm/v3/owners/9001?idProperty=userId')).body.id).toBe('501');
    expect((await api('GET', '/crm/v3/owners/999')).status).toBe(404);
  });

  it("takes an owner id as a deal's hubspot_owner_id and refuses a user id or an unknown one", async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'Owned', hubspot_owner_id: '502' }, associations: [] });
    expect((await client.crm.deals.basicApi.getById(deal.id, ['hubspot_owner_id'])).properties.hubspot_owner_id).toBe('502');
    const refused = await errorOf(client.crm.deals.basicApi.update(deal.id, { properties: { hubspot_owner_id: '9001' } }));
    expect(refused.code).toBe(400);
    expect(refused.body.message).toContain('INVALID_OWNER_ID');
  });
});

describe('HubSpot sandbox: notes and tasks', () => {
  it('refuses a note or task without hs_timestamp, naming it, and writes nothing', async () => {
    const withoutTimestamp: Record<string, Record<string, string>> = { notes: { hs_note_body: 'x' }, tasks: { hs_task_subject: 'x' } };
    for (const [type, properties] of Object.entries(withoutTimestamp)) {
      const refused = await api('POST', `/crm/v3/objects/${type}`, { properties });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain('hs_timestamp');
      expect((await api('GET', `/crm/v3/objects/${type}`)).body.results).toEqual([]);
    }
  });

  it('checks task status and priority against their options', async () => {
    const refused = await api('POST', '/crm/v3/objects/tasks', { properties: { hs_timestamp: '2026-01-05T00:00:00Z', hs_task_status: 'DONE' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('hs_task_status');
    const priority = await api('POST', '/crm/v3/objects/tasks', { properties: { hs_timestamp: '2026-01-05T00:00:00Z', hs_task_priority: 'URGENT' } });
    expect(priority.status).toBe(400);
  });

  it('makes a batch of notes and tasks with their associations, read from both ends with the default type ids', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'Timeline deal' }, associations: [] });
    const company = await client.crm.companies.basicApi.create({ properties: { name: 'Buyer Co' }, associations: [] });
    const notes = await api('POST', '/crm/v3/objects/notes/batch/create', {
      inputs: [
        { properties: { hs_timestamp: '1767571200000', hs_note_body: 'Offer accepted', hubspot_owner_id: '501' }, associations: [{ to: { id: deal.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 214 }] }] },
        { properties: { hs_timestamp: '2026-01-05T00:00:00Z', hs_note_body: 'Buyer onboarded' }, associations: [{ to: { id: company.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 }] }] },
      ],
    });
    expect(notes.status).toBe(201);
    expect(notes.body.results[0].properties.hs_timestamp).toBe('2026-01-05T00:00:00.000Z');
    const task = await api('POST', '/crm/v3/objects/tasks', {
      properties: { hs_timestamp: '2026-01-12T00:00:00Z', hs_task_subject: 'Renewal pending', hs_task_body: 'Act before the 12th', hs_task_status: 'NOT_STARTED', hs_task_priority: 'HIGH', hubspot_owner_id: '502' },
      associations: [{ to: { id: deal.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 216 }] }],
    });
    expect(task.status).toBe(201);
    const fromDeal = await api('GET', `/crm/v4/objects/deals/${deal.id}/associations/notes`);
    expect(fromDeal.body.results.map((r: any) => [r.toObjectId, r.associationTypes.map((t: any) => t.typeId)])).toEqual([[notes.body.results[0].id, [213]]]);
    const tasksOfDeal = await api('GET', `/crm/v4/objects/deals/${deal.id}/associations/tasks`);
    expect(tasksOfDeal.body.results.map((r: any) => [r.toObjectId, r.associationTypes.map((t: any) => t.typeId)])).toEqual([[task.body.id, [215]]]);
    const fromNote = await api('GET', `/crm/v4/objects/notes/${notes.body.results[1].id}/associations/companies`);
    expect(fromNote.body.results.map((r: any) => [r.toObjectId, r.associationTypes.map((t: any) => t.typeId)])).toEqual([[company.id, [190]]]);
  });

  it('refuses an association to a record that does not exist, or a type id that is not from notes, and makes no note', async () => {
    const before = (await api('GET', '/crm/v3/objects/notes?limit=100')).body.results.length;
    const missing = await api('POST', '/crm/v3/objects/notes', { properties: { hs_timestamp: '2026-01-05T00:00:00Z' }, associations: [{ to: { id: '99999999' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 214 }] }] });
    expect(missing.status).toBe(400);
    expect(missing.body.context.INVALID_OBJECT_IDS).toEqual(['DEAL=99999999 is not valid']);
    const wrongType = await api('POST', '/crm/v3/objects/notes', { properties: { hs_timestamp: '2026-01-05T00:00:00Z' }, associations: [{ to: { id: '1' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 216 }] }] });
    expect(wrongType.status).toBe(400);
    expect((await api('GET', '/crm/v3/objects/notes?limit=100')).body.results.length).toBe(before);
  });

  it('associates a task to the custom object entitlement by the default association', async () => {
    const entitlement = await api('POST', '/crm/v3/objects/2-1234567', { properties: { entitlement_name: 'E', entitlement_id: 'ent-1' } });
    const task = await api('POST', '/crm/v3/objects/tasks', { properties: { hs_timestamp: '2026-01-05T00:00:00Z', hs_task_subject: 'Cancellation pending' } });
    const made = await api('POST', '/crm/v4/associations/tasks/2-1234567/batch/associate/default', { inputs: [{ from: { id: task.body.id }, to: { id: entitlement.body.id } }] });
    expect(made.status).toBe(200);
    const read = await api('GET', `/crm/v4/objects/2-1234567/${entitlement.body.id}/associations/tasks`);
    expect(read.body.results.map((r: any) => r.toObjectId)).toEqual([task.body.id]);
  });

  it('has no unique-value property on activities: making one is refused, and an upsert by a plain property is refused', async () => {
    const unique = await api('POST', '/crm/v3/properties/tasks', { name: 'commerce_event_id', label: 'Event', type: 'string', fieldType: 'text', groupName: 'taskinformation', hasUniqueValue: true });
    expect(unique.status).toBe(400);
    expect(unique.body.message).toContain('unique');
    const plain = await api('POST', '/crm/v3/properties/tasks', { name: 'commerce_event_id', label: 'Event', type: 'string', fieldType: 'text', groupName: 'taskinformation' });
    expect(plain.status).toBe(201);
    const upsert = await api('POST', '/crm/v3/objects/tasks/batch/upsert', { inputs: [{ idProperty: 'commerce_event_id', id: 'ev-1', properties: { hs_timestamp: '2026-01-05T00:00:00Z' } }] });
    expect(upsert.status).toBe(400);
    // A search by the plain property finds a task made with it (how a write lost in a crash is found again).
    await api('POST', '/crm/v3/objects/tasks', { properties: { hs_timestamp: '2026-01-05T00:00:00Z', commerce_event_id: 'ev-2' } });
    const found = await api('POST', '/crm/v3/objects/tasks/search', { filterGroups: [{ filters: [{ propertyName: 'commerce_event_id', operator: 'IN', values: ['ev-2', 'ev-3'] }] }], properties: ['commerce_event_id'] });
    expect(found.body.results.map((r: any) => r.properties.commerce_event_id)).toEqual(['ev-2']);
  });
});
