// HubSpot sandbox through @hubspot/api-client: custom objects as HubSpot addresses them since June 2025
// (objectTypeId, fully qualified name or p_ short-hand; the bare name is an unknown type), the schemas
// API (list, read, create, 409 on a taken name, 403 for an account without custom objects, 403
// MISSING_SCOPES for a token without the schemas scopes) and property groups (a property needs a group
// that exists on its object; the default groups are there from the start).
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const started: HubSpotSandbox[] = [];
async function portal(options: Parameters<typeof startHubSpotSandbox>[0] = {}) {
  const sandbox = await startHubSpotSandbox(options);
  started.push(sandbox);
  return { sandbox, client: new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl }) };
}
afterAll(async () => {
  for (const sandbox of started) await sandbox.stop();
});

const ENTITLEMENT_SCHEMA = {
  name: 'marketplace_entitlement',
  labels: { singular: 'Marketplace entitlement', plural: 'Marketplace entitlements' },
  primaryDisplayProperty: 'entitlement_name',
  requiredProperties: [],
  searchableProperties: ['entitlement_name'],
  secondaryDisplayProperties: [],
  associatedObjects: ['COMPANY', 'DEAL'],
  properties: [
    { name: 'entitlement_name', label: 'Name', type: 'string', fieldType: 'text' },
    { name: 'entitlement_id', label: 'Entitlement id', type: 'string', fieldType: 'text', hasUniqueValue: true },
  ],
};

describe('HubSpot sandbox: custom objects by objectTypeId or fully qualified name', () => {
  let client: Client;
  beforeAll(async () => ({ client } = await portal({ portalId: '777' })));

  it('lists the pre-made schema with its objectTypeId and fully qualified name, and reads it by either', async () => {
    const all = await client.crm.schemas.coreApi.getAll();
    expect(all.results.map((schema) => [schema.name, schema.objectTypeId, schema.fullyQualifiedName])).toEqual([['marketplace_entitlement', '2-1234567', 'p777_marketplace_entitlement']]);
    expect((await client.crm.schemas.coreApi.getById('2-1234567')).name).toBe('marketplace_entitlement');
    expect((await client.crm.schemas.coreApi.getById('p777_marketplace_entitlement')).objectTypeId).toBe('2-1234567');
  });

  it('answers 400 for the bare name on every object path, and serves the same records by objectTypeId, fully qualified name and p_ short-hand', async () => {
    const made = await client.crm.objects.batchApi.upsert('2-1234567', { inputs: [{ idProperty: 'entitlement_id', id: 'e-1', properties: { entitlement_name: 'Gold' } }] });
    const id = made.results[0]!.id;
    for (const name of ['2-1234567', 'p777_marketplace_entitlement', 'p_marketplace_entitlement']) {
      expect((await client.crm.objects.basicApi.getById(name, id, ['entitlement_id'])).properties.entitlement_id).toBe('e-1');
    }
    const refusals = await Promise.all([
      errorOf(client.crm.objects.basicApi.getById('marketplace_entitlement', id)),
      errorOf(client.crm.objects.batchApi.upsert('marketplace_entitlement', { inputs: [{ idProperty: 'entitlement_id', id: 'e-2', properties: {} }] })),
      errorOf(client.crm.objects.searchApi.doSearch('marketplace_entitlement', { filterGroups: [], sorts: [], properties: [], limit: 1, after: undefined as any })),
      errorOf(client.crm.properties.coreApi.getAll('marketplace_entitlement')),
      errorOf(client.crm.associations.v4.batchApi.createDefault('marketplace_entitlement', 'deals', { inputs: [] })),
    ]);
    for (const refusal of refusals) expect([refusal?.code, refusal?.body?.message]).toEqual([400, 'Unable to infer object type from: marketplace_entitlement']);
    // Another portal's fully qualified name is not this portal's object.
    expect((await errorOf(client.crm.objects.basicApi.getById('p4242_marketplace_entitlement', id))).code).toBe(400);
  });
});

describe('HubSpot sandbox: defining a custom object (POST /crm-object-schemas/v3/schemas)', () => {
  it('a portal without it lists none; creating it gives a 2-... objectTypeId its records are written by; a second of the same name is 409', async () => {
    const { client } = await portal({ premadeCustomObjects: false, portalId: '31' });
    expect((await client.crm.schemas.coreApi.getAll()).results).toEqual([]);
    expect((await errorOf(client.crm.objects.basicApi.getPage('p31_marketplace_entitlement'))).code).toBe(400);

    const made = await client.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as any);
    expect(made.objectTypeId).toMatch(/^2-\d+$/);
    expect(made).toMatchObject({ name: 'marketplace_entitlement', fullyQualifiedName: 'p31_marketplace_entitlement', primaryDisplayProperty: 'entitlement_name' });
    expect(made.properties.map((p) => p.name)).toEqual(expect.arrayContaining(['entitlement_name', 'entitlement_id', 'hs_object_id']));
    expect(made.associations.map((a) => a.toObjectTypeId).sort()).toEqual(['0-2', '0-3']);

    const written = await client.crm.objects.batchApi.upsert(made.objectTypeId!, { inputs: [{ idProperty: 'entitlement_id', id: 'e-9', properties: { entitlement_name: 'Silver' } }] });
    expect(written.results[0]!.properties.entitlement_id).toBe('e-9');
    const again = await errorOf(client.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as any));
    expect(again.code).toBe(409);
    expect(again.body.message).toContain(made.objectTypeId);
  });

  it('an account without custom objects (no Enterprise subscription) lists none and is refused a new one with 403, not MISSING_SCOPES', async () => {
    const { client } = await portal({ customObjects: false });
    expect((await client.crm.schemas.coreApi.getAll()).results).toEqual([]);
    const refused = await errorOf(client.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as any));
    expect(refused.code).toBe(403);
    expect(refused.body.category).not.toBe('MISSING_SCOPES');
    expect(refused.body.message).toContain('Enterprise');
  });

  it('a token without the schemas scopes is answered 403 MISSING_SCOPES naming them', async () => {
    const { sandbox, client } = await portal({ withheldScopes: ['crm.schemas.custom.read', 'crm.objects.custom.read', 'crm.schemas.custom.write'] });
    const reading = await errorOf(client.crm.schemas.coreApi.getAll());
    expect(reading.code).toBe(403);
    expect(reading.body).toMatchObject({ category: 'MISSING_SCOPES', errors: [{ context: { requiredGranularScopes: ['crm.schemas.custom.read', 'crm.objects.custom.read'] } }] });
    const creating = await errorOf(client.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as any));
    expect(creating.body.errors[0].context.requiredGranularScopes).toEqual(['crm.schemas.custom.write']);
    // Standard objects are not affected; granted again, the schemas answer.
    expect((await client.crm.deals.basicApi.getPage(1)).results).toEqual([]);
    await control(sandbox, 'POST', '/scopes', { withheld: [] });
    expect((await client.crm.schemas.coreApi.getAll()).results).toHaveLength(1);
  });
});

describe('HubSpot sandbox: property groups', () => {
  it('has each object default group from the start; a property in a group its object lacks is refused; once the group is made, it is taken', async () => {
    const { client } = await portal();
    const groupsOf = async (type: string) => (await client.crm.properties.groupsApi.getAll(type)).results.map((g) => g.name);
    expect(await groupsOf('contacts')).toEqual(['contactinformation']);
    expect(await groupsOf('companies')).toEqual(['companyinformation']);
    expect(await groupsOf('deals')).toEqual(['dealinformation']);
    expect((await client.crm.properties.coreApi.getByName('deals', 'dealname')).groupName).toBe('dealinformation');

    const property = { name: 'commerce_offer_id', label: 'Offer id', type: 'string' as any, fieldType: 'text' as any, groupName: 'commerce', hasUniqueValue: true };
    const refused = await errorOf(client.crm.properties.coreApi.create('deals', property));
    expect(refused.code).toBe(400);
    expect(refused.body.message).toContain('commerce');
    // A group exists per object: companyinformation is not a deal group.
    expect((await errorOf(client.crm.properties.coreApi.create('deals', { ...property, groupName: 'companyinformation' }))).code).toBe(400);

    const group = await client.crm.properties.groupsApi.create('deals', { name: 'commerce', label: 'Commerce' });
    expect(group).toMatchObject({ name: 'commerce', label: 'Commerce', archived: false });
    expect((await errorOf(client.crm.properties.groupsApi.create('deals', { name: 'commerce', label: 'Commerce' }))).code).toBe(409);
    expect((await client.crm.properties.coreApi.create('deals', property)).groupName).toBe('commerce');
    expect(await groupsOf('deals')).toEqual(['dealinformation', 'commerce']);
    // The custom object's own default group.
    expect(await groupsOf('2-1234567')).toEqual(['marketplace_entitlement_information']);
  });
});

describe('HubSpot sandbox: journal', () => {
  it('keeps a custom object defined through the API, its records and a property group across a restart', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'hubspot-schemas-'));
    const journalPath = path.join(dir, 'hubspot.jsonl');
    try {
      const first = await startHubSpotSandbox({ journalPath, seed: 3, premadeCustomObjects: false });
      const c1 = new Client({ accessToken: first.accessToken, basePath: first.baseUrl });
      const made = await c1.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as any);
      await c1.crm.properties.groupsApi.create(made.objectTypeId!, { name: 'commerce', label: 'Commerce' });
      await c1.crm.properties.coreApi.create(made.objectTypeId!, { name: 'commit_amount', label: 'Commit', type: 'number' as any, fieldType: 'number' as any, groupName: 'commerce' });
      await c1.crm.objects.batchApi.upsert(made.objectTypeId!, { inputs: [{ idProperty: 'entitlement_id', id: 'e-1', properties: { commit_amount: '5' } }] });
      await first.stop();

      const again = await startHubSpotSandbox({ journalPath, seed: 3, premadeCustomObjects: false });
      started.push(again);
      const c2 = new Client({ accessToken: again.accessToken, basePath: again.baseUrl });
      expect((await c2.crm.schemas.coreApi.getAll()).results.map((schema) => schema.objectTypeId)).toEqual([made.objectTypeId]);
      expect((await c2.crm.properties.groupsApi.getAll(made.objectTypeId!)).results.map((g) => g.name)).toEqual(['marketplace_entitlement_information', 'commerce']);
      const read = await c2.crm.objects.basicApi.getById(made.objectTypeId!, 'e-1', ['commit_amount'], undefined, undefined, false, 'entitlement_id');
      expect(read.properties.commit_amount).toBe('5');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
