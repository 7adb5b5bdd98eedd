// Dynamics sandbox (issue #27 gaps): a completed or canceled task is read-only, as in Dataverse
// (docs/crm-wire-behaviour.md, "Edits to completed tasks"): an update of its columns alone is refused
// with "Cannot update Closed or Cancelled Activity", by GUID and by its alternate key alike; an update
// naming its state (re-opening it, or completing it again) is taken; an open task takes column updates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { fetchToken } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let token: string;
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${sb.orgUrl}api/data/v9.2/${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined, entityId: response.headers.get('odata-entityid') ?? '' };
};
const guidOf = (entityId: string) => /\(([0-9a-f-]{36})\)$/.exec(entityId)![1]!;
const read = async (id: string) => (await api('GET', `tasks(${id})?$select=subject,description,statecode,statuscode`)).body;

beforeAll(async () => {
  sb = await startDynamicsSandbox({ keyActivationMs: 0 });
  token = (await fetchToken(sb)).body.access_token;
  await api('POST', "EntityDefinitions(LogicalName='task')/Attributes", { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commerceeventid', MaxLength: 100 });
  await api('POST', "EntityDefinitions(LogicalName='task')/Keys", { SchemaName: 'ccs_task_commerceeventid', KeyAttributes: ['ccs_commerceeventid'] });
});
afterAll(async () => sb.stop());

describe('Dynamics sandbox: completed and canceled tasks are read-only', () => {
  it('refuses a column update of a completed task, by GUID and by key, and keeps it as it was', async () => {
    const made = guidOf((await api('PATCH', "tasks(ccs_commerceeventid='ev-O''Brien')", { subject: 'Offer accepted', description: 'First words' })).entityId);
    expect((await api('PATCH', `tasks(${made})`, { statecode: 1, statuscode: 5 })).status).toBe(204);
    for (const path of [`tasks(${made})`, "tasks(ccs_commerceeventid='ev-O''Brien')"]) {
      const refused = await api('PATCH', path, { subject: "Offer accepted (O'Brien)" });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe('Cannot update Closed or Cancelled Activity');
    }
    expect(await read(made)).toMatchObject({ subject: 'Offer accepted', description: 'First words', statecode: 1, statuscode: 5 });
  });

  it('refuses it on a canceled task too', async () => {
    const made = guidOf((await api('POST', 'tasks', { subject: 'Referral to answer' })).entityId);
    expect((await api('PATCH', `tasks(${made})`, { statecode: 2, statuscode: 6 })).status).toBe(204);
    expect((await api('PATCH', `tasks(${made})`, { description: 'Too late' })).body.error.message).toBe('Cannot update Closed or Cancelled Activity');
  });

  it('takes an update that names the state: re-opened with new words, then completed again', async () => {
    const made = guidOf((await api('POST', 'tasks', { subject: 'Usage report failed' })).entityId);
    await api('PATCH', `tasks(${made})`, { statecode: 1, statuscode: 5 });
    expect((await api('PATCH', `tasks(${made})`, { statecode: 0, statuscode: 2, subject: 'Usage report failed again' })).status).toBe(204);
    expect(await read(made)).toMatchObject({ subject: 'Usage report failed again', statecode: 0, statuscode: 2 });
    expect((await api('PATCH', `tasks(${made})`, { description: 'Open: editable' })).status).toBe(204);
    expect((await api('PATCH', `tasks(${made})`, { statecode: 1, statuscode: 5 })).status).toBe(204);
    expect(await read(made)).toMatchObject({ description: 'Open: editable', statecode: 1, statuscode: 5 });
  });
});
