// Dynamics sandbox (issue #27 section 1): the task activity as Dataverse keeps it
// (docs/crm-wire-behaviour.md): regarding an opportunity, an account or a custom table made with
// HasActivities, owned by the caller unless a create binds a user, Open on create whatever statecode
// says, completed by a PATCH of statecode 1 / statuscode 5 (a status reason of another state refused),
// upserted by an alternate key on a custom column; every user-owned row reads its owner as _ownerid_value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { SELLERS } from '../../sandbox/dynamics/users.ts';
import { fetchToken } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let token: string;
const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${sb.orgUrl}api/data/v9.2/${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined, entityId: response.headers.get('odata-entityid') ?? '' };
};
const guidOf = (entityId: string) => /\(([0-9a-f-]{36})\)$/.exec(entityId)![1]!;
const [ada, ben] = SELLERS;

beforeAll(async () => {
  sb = await startDynamicsSandbox({ keyActivationMs: 0 });
  token = (await fetchToken(sb)).body.access_token;
});
afterAll(async () => sb.stop());

describe('Dynamics sandbox: task activities', () => {
  it('lists the organisation users; a record is its creator\'s unless the create binds another owner', async () => {
    const users = await api('GET', 'systemusers?$select=fullname,internalemailaddress');
    expect(users.body.value.map((u: any) => u.fullname)).toEqual(expect.arrayContaining(['Ada Seller', 'Ben Rep']));
    const mine = await api('POST', 'opportunities', { name: 'Mine' });
    const who = await api('GET', 'WhoAmI');
    expect((await api('GET', `opportunities(${guidOf(mine.entityId)})?$select=_ownerid_value`)).body._ownerid_value).toBe(who.body.UserId);
    const adas = await api('POST', 'opportunities', { name: "Ada's", 'ownerid@odata.bind': `/systemusers(${ada!.id})` });
    expect((await api('GET', `opportunities(${guidOf(adas.entityId)})?$select=_ownerid_value`)).body._ownerid_value).toBe(ada!.id);
    const unknown = await api('POST', 'opportunities', { name: 'Nobody', 'ownerid@odata.bind': '/systemusers(00000000-0000-0000-0000-0000000000aa)' });
    expect(unknown.status).toBe(404);
  });

  it('makes a task regarding an opportunity, owned as bound, Open (Not Started) even when the create says Completed', async () => {
    const opportunity = guidOf((await api('POST', 'opportunities', { name: 'Offer deal', 'ownerid@odata.bind': `/systemusers(${ben!.id})` })).entityId);
    const made = await api('POST', 'tasks', {
      subject: 'Offer accepted', description: 'The buyer accepted the private offer', scheduledend: '2026-01-12T00:00:00Z', statecode: 1,
      'regardingobjectid_opportunity_task@odata.bind': `/opportunities(${opportunity})`, 'ownerid@odata.bind': `/systemusers(${ben!.id})`,
    }, { prefer: 'return=representation' });
    expect(made.status).toBe(201);
    expect([made.body.statecode, made.body.statuscode, made.body._regardingobjectid_value, made.body._ownerid_value]).toEqual([0, 2, opportunity, ben!.id]);
    expect(made.body.scheduledend).toBe('2026-01-12T00:00:00Z');
    const closedOnCreate = await api('POST', 'tasks', { subject: 'x', statuscode: 5 });
    expect(closedOnCreate.status).toBe(400);
    expect(closedOnCreate.body.error.message).toContain('TaskState.Open');
  });

  it('completes a task with statecode 1 / statuscode 5 (and with statecode 1 alone), refuses a reason of another state', async () => {
    const account = guidOf((await api('POST', 'accounts', { name: 'Buyer' })).entityId);
    const task = guidOf((await api('POST', 'tasks', { subject: 'Buyer onboarded', 'regardingobjectid_account_task@odata.bind': `/accounts(${account})` })).entityId);
    expect((await api('PATCH', `tasks(${task})`, { statecode: 0, statuscode: 5 }, { 'if-match': '*' })).status).toBe(400);
    expect((await api('PATCH', `tasks(${task})`, { statecode: 1, statuscode: 5 }, { 'if-match': '*' })).status).toBe(204);
    expect((await api('GET', `tasks(${task})?$select=statecode,statuscode,_regardingobjectid_value`)).body).toMatchObject({ statecode: 1, statuscode: 5, _regardingobjectid_value: account });
    const other = guidOf((await api('POST', 'tasks', { subject: 'y' })).entityId);
    expect((await api('PATCH', `tasks(${other})`, { statecode: 1 }, { 'if-match': '*' })).status).toBe(204);
    expect((await api('GET', `tasks(${other})?$select=statecode,statuscode`)).body).toMatchObject({ statecode: 1, statuscode: 5 });
    // A task cannot be regarding a contact here (no such navigation property on task).
    expect((await api('POST', 'tasks', { subject: 'z', 'regardingobjectid_contact_task@odata.bind': `/accounts(${account})` })).status).toBe(400);
  });

  it('upserts a task by an alternate key on a custom column, once per key', async () => {
    expect((await api('POST', "EntityDefinitions(LogicalName='task')/Attributes", { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commerceeventid', MaxLength: 100 })).status).toBe(204);
    expect((await api('POST', "EntityDefinitions(LogicalName='task')/Keys", { SchemaName: 'ccs_commerceeventkey', KeyAttributes: ['ccs_commerceeventid'] })).status).toBe(204);
    const deadline = Date.now() + 10_000;
    while ((await api('GET', "EntityDefinitions(LogicalName='task')/Keys")).body.value[0].EntityKeyIndexStatus !== 'Active') {
      if (Date.now() > deadline) throw new Error('the task key did not become Active');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const first = await api('PATCH', "tasks(ccs_commerceeventid='ev-1')", { subject: 'Offer accepted' });
    const again = await api('PATCH', "tasks(ccs_commerceeventid='ev-1')", { subject: 'Offer accepted', statecode: 1, statuscode: 5 });
    expect(guidOf(again.entityId)).toBe(guidOf(first.entityId));
    const rows = await api('GET', "tasks?$filter=ccs_commerceeventid eq 'ev-1'&$select=statecode,statuscode");
    expect(rows.body.value.map((r: any) => [r.statecode, r.statuscode])).toEqual([[1, 5]]);
  });

  it('lets a task be regarding a custom table made with HasActivities, not one made without', async () => {
    const table = (name: string, hasActivities: boolean) =>
      api('POST', 'EntityDefinitions', { SchemaName: name, EntitySetName: `${name}s`, OwnershipType: 'UserOwned', HasActivities: hasActivities, Attributes: [{ '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_name', IsPrimaryName: true, MaxLength: 100 }] });
    expect((await table('ccs_withactivities', true)).status).toBe(204);
    expect((await table('ccs_withoutactivities', false)).status).toBe(204);
    const row = guidOf((await api('POST', 'ccs_withactivitiess', { ccs_name: 'E', 'ownerid@odata.bind': `/systemusers(${ada!.id})` })).entityId);
    const task = await api('POST', 'tasks', { subject: 'Cancellation pending', 'regardingobjectid_ccs_withactivities_task@odata.bind': `/ccs_withactivitiess(${row})` }, { prefer: 'return=representation' });
    expect(task.status).toBe(201);
    expect(task.body._regardingobjectid_value).toBe(row);
    expect((await api('GET', `ccs_withactivitiess(${row})?$select=_ownerid_value`)).body._ownerid_value).toBe(ada!.id);
    const other = guidOf((await api('POST', 'ccs_withoutactivitiess', { ccs_name: 'F' })).entityId);
    expect((await api('POST', 'tasks', { subject: 'No', 'regardingobjectid_ccs_withoutactivities_task@odata.bind': `/ccs_withoutactivitiess(${other})` })).status).toBe(400);
  });
});
