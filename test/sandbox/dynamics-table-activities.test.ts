// Dynamics sandbox (issue #27 gaps): a table made without activities gets them later by an UpdateEntity
// (PUT EntityDefinitions with the whole definition; PATCH refused), as Dataverse takes it
// (docs/crm-wire-behaviour.md, "Turning activities on for an existing table"): HasActivities reads back,
// a task can then be regarding the table's rows (before, Dataverse's own words for an undeclared
// navigation property), a second PUT with it on changes nothing, turning it off is refused, labels a
// PUT leaves out survive only with MSCRM.MergeLabels: true.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { fetchToken } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let token: string;
const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${sb.orgUrl}api/data/v9.2/${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined, entityId: response.headers.get('odata-entityid') ?? '' };
};
const guidOf = (entityId: string) => /\(([0-9a-f-]{36})\)$/.exec(entityId)![1]!;
const label = (text: string) => ({ LocalizedLabels: [{ Label: text, LanguageCode: 1033 }] });
/** A table as an older setup made it: no activities. */
const olderTable = (name: string, displayName: string) =>
  api('POST', 'EntityDefinitions', { SchemaName: name, EntitySetName: `${name}s`, DisplayName: label(displayName), OwnershipType: 'UserOwned', HasActivities: false, Attributes: [{ '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_name', IsPrimaryName: true, MaxLength: 100 }] });
/** The table's definition as GET answers it, without its annotations: what a PUT sends back. */
async function definition(name: string) {
  const { '@odata.context': _context, ...rest } = (await api('GET', `EntityDefinitions(LogicalName='${name}')`)).body;
  return rest;
}

beforeAll(async () => {
  sb = await startDynamicsSandbox({ keyActivationMs: 0 });
  token = (await fetchToken(sb)).body.access_token;
});
afterAll(async () => sb.stop());

describe('Dynamics sandbox: turning activities on for an existing table', () => {
  it('takes HasActivities on in a PUT of the whole definition; a task can then be regarding its rows', async () => {
    expect((await olderTable('ccs_lateactivities', 'Late "activities" \\ é')).status).toBe(204);
    const row = guidOf((await api('POST', 'ccs_lateactivitiess', { ccs_name: "O'Brien \\ ü" })).entityId);
    const before = await api('POST', 'tasks', { subject: 'Too early', 'regardingobjectid_ccs_lateactivities_task@odata.bind': `/ccs_lateactivitiess(${row})` });
    expect(before.status).toBe(400);
    expect(before.body.error.message).toContain(
      "An undeclared property 'regardingobjectid_ccs_lateactivities_task' which only has property annotations in the payload but no property value was found in the payload.",
    );
    const current = await definition('ccs_lateactivities');
    expect(current.HasActivities).toBe(false);

    const patched = await api('PATCH', `EntityDefinitions(${current.MetadataId})`, { HasActivities: true });
    expect(patched.status).toBe(405);
    const put = await api('PUT', `EntityDefinitions(${current.MetadataId})`, { ...current, HasActivities: true }, { 'MSCRM.MergeLabels': 'true' });
    expect(put.status).toBe(204);

    const after = await definition('ccs_lateactivities');
    expect(after.HasActivities).toBe(true);
    expect(after.DisplayName.LocalizedLabels[0].Label).toBe('Late "activities" \\ é');
    const task = await api('POST', 'tasks', { subject: 'Now it lands', 'regardingobjectid_ccs_lateactivities_task@odata.bind': `/ccs_lateactivitiess(${row})` }, { prefer: 'return=representation' });
    expect(task.status).toBe(201);
    expect(task.body._regardingobjectid_value).toBe(row);
  });

  it('answers a second PUT with activities on as the first, and refuses to turn them off', async () => {
    await olderTable('ccs_onceonly', 'Once only');
    const current = await definition('ccs_onceonly');
    const on = { ...current, HasActivities: true };
    expect((await api('PUT', `EntityDefinitions(LogicalName='ccs_onceonly')`, on, { 'MSCRM.MergeLabels': 'true' })).status).toBe(204);
    expect((await api('PUT', `EntityDefinitions(LogicalName='ccs_onceonly')`, on, { 'MSCRM.MergeLabels': 'true' })).status).toBe(204);
    const off = await api('PUT', `EntityDefinitions(LogicalName='ccs_onceonly')`, { ...on, HasActivities: false }, { 'MSCRM.MergeLabels': 'true' });
    expect(off.status).toBe(400);
    expect(off.body.error.message).toContain('cannot be disabled');
    expect((await definition('ccs_onceonly')).HasActivities).toBe(true);
    const relationships = (await api('GET', "EntityDefinitions(LogicalName='task')/ManyToOneRelationships")).body.value.filter((r: any) => r.ReferencedEntity === 'ccs_onceonly');
    expect(relationships.map((r: any) => r.ReferencingEntityNavigationPropertyName)).toEqual(['regardingobjectid_ccs_onceonly_task']);
  });

  it('loses the labels a PUT leaves out without MSCRM.MergeLabels, keeps them with it; a name cannot change', async () => {
    await olderTable('ccs_labels', 'Kept label');
    const { DisplayName: _name, ...withoutLabel } = await definition('ccs_labels');
    await api('PUT', `EntityDefinitions(LogicalName='ccs_labels')`, withoutLabel, { 'MSCRM.MergeLabels': 'true' });
    expect((await definition('ccs_labels')).DisplayName.LocalizedLabels[0].Label).toBe('Kept label');
    await api('PUT', `EntityDefinitions(LogicalName='ccs_labels')`, withoutLabel);
    expect((await definition('ccs_labels')).DisplayName.LocalizedLabels[0].Label).toBe('');
    const renamed = await api('PUT', `EntityDefinitions(LogicalName='ccs_labels')`, { ...withoutLabel, EntitySetName: 'ccs_others' });
    expect(renamed.status).toBe(400);
  });

  it('says every standard table the timeline uses has activities', async () => {
    for (const table of ['account', 'opportunity']) expect((await definition(table)).HasActivities).toBe(true);
  });
});
