// HubSpot sandbox through @hubspot/api-client: properties v3 (read all, read one, create with
// hasUniqueValue), deal pipelines (default one, create) and associations v4 (default, batch, read).
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const uniqueProperty = (name: string, groupName = 'companyinformation') => ({ name, label: name, type: 'string' as any, fieldType: 'text' as any, groupName, hasUniqueValue: true });

beforeAll(async () => {
  sandbox = await startHubSpotSandbox();
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
});
afterAll(() => sandbox.stop());
beforeEach(() => control(sandbox, 'POST', '/reset'));

describe('HubSpot sandbox: properties', () => {
  it('reads the built-in properties, creates one with a unique value, then enforces it', async () => {
    const before = await client.crm.properties.coreApi.getAll('companies');
    expect(before.results.map((p) => p.name)).toEqual(expect.arrayContaining(['name', 'domain', 'hs_object_id', 'createdate', 'hs_lastmodifieddate']));
    expect(before.results.find((p) => p.name === 'commerce_buyer_id')).toBeUndefined();

    const made = await client.crm.properties.coreApi.create('companies', uniqueProperty('commerce_buyer_id'));
    expect(made).toMatchObject({ name: 'commerce_buyer_id', type: 'string', hasUniqueValue: true, hubspotDefined: false });
    expect((await client.crm.properties.coreApi.getByName('companies', 'commerce_buyer_id')).hasUniqueValue).toBe(true);

    await client.crm.companies.basicApi.create({ properties: { name: 'A', commerce_buyer_id: 'b-1' }, associations: [] });
    const clash = await errorOf(client.crm.companies.basicApi.create({ properties: { name: 'B', commerce_buyer_id: 'b-1' }, associations: [] }));
    expect(clash.code).toBe(409);
    // Properties are per object: the same name is free on contacts.
    expect((await errorOf(client.crm.properties.coreApi.getByName('contacts', 'commerce_buyer_id'))).code).toBe(404);
  });

  it('refuses a second property of the same name (409) and a bad definition (400 naming the field)', async () => {
    await client.crm.properties.coreApi.create('deals', uniqueProperty('commerce_offer_id', 'dealinformation'));
    const twice = await errorOf(client.crm.properties.coreApi.create('deals', uniqueProperty('commerce_offer_id', 'dealinformation')));
    expect(twice.code).toBe(409);
    const badType = await errorOf(client.crm.properties.coreApi.create('deals', { ...uniqueProperty('x_y', 'dealinformation'), type: 'varchar' as any }));
    expect(badType.code).toBe(400);
    expect(badType.body.message).toContain('varchar');
    const badName = await errorOf(client.crm.properties.coreApi.create('deals', uniqueProperty('Bad Name', 'dealinformation')));
    expect(badName.body.message).toContain('Bad Name');
  });

  it('checks values against the created property type (a number property refuses text)', async () => {
    await client.crm.properties.coreApi.create('2-1234567', { name: 'commit_amount', label: 'Commit', type: 'number' as any, fieldType: 'number' as any, groupName: 'marketplace_entitlement_information' });
    const bad = await errorOf(client.crm.objects.basicApi.create('p4242_marketplace_entitlement', { properties: { commit_amount: 'lots' }, associations: [] }));
    expect(bad.code).toBe(400);
    expect(bad.body.message).toContain('commit_amount');
    const good = await client.crm.objects.basicApi.create('2-1234567', { properties: { commit_amount: '1500.5' }, associations: [] });
    expect(good.properties.commit_amount).toBe('1500.5');
  });
});

describe('HubSpot sandbox: deal pipelines', () => {
  it('has a default pipeline with its stages, and creates another one', async () => {
    const all = await client.crm.pipelines.pipelinesApi.getAll('deals');
    expect(all.results.map((p) => p.id)).toEqual(['default']);
    expect(all.results[0]!.stages.map((s) => s.id)).toContain('closedwon');

    const made = await client.crm.pipelines.pipelinesApi.create('deals', {
      label: 'Marketplace',
      displayOrder: 1,
      stages: [
        { label: 'Draft', displayOrder: 0, metadata: { probability: '0.1' } },
        { label: 'Accepted', displayOrder: 1, metadata: { probability: '1.0', isClosed: 'true' } },
      ],
    });
    expect(made.label).toBe('Marketplace');
    expect(made.stages.map((s) => s.label)).toEqual(['Draft', 'Accepted']);
    expect(new Set([made.id, ...made.stages.map((s) => s.id)]).size).toBe(3);
    expect((await client.crm.pipelines.pipelinesApi.getById('deals', made.id)).stages).toHaveLength(2);
    expect((await client.crm.pipelines.pipelinesApi.getAll('deals')).results.map((p) => p.label)).toEqual(['Sales Pipeline', 'Marketplace']);

    const again = await errorOf(client.crm.pipelines.pipelinesApi.create('deals', { label: 'Marketplace', displayOrder: 2, stages: [{ label: 'X', displayOrder: 0, metadata: { probability: '0' } }] }));
    expect(again.code).toBe(409);
  });
});

describe('HubSpot sandbox: associations v4', () => {
  it('makes the default association with the default type ids and reads it from both ends', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'D' }, associations: [] });
    const company = await client.crm.companies.basicApi.create({ properties: { name: 'C' }, associations: [] });
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: 'c@example.com' }, associations: [] });

    const made = await client.crm.associations.v4.basicApi.createDefault('deals', deal.id, 'companies', company.id);
    expect(made.results.map((r) => r.associationSpec.associationTypeId).sort((a, b) => a - b)).toEqual([5, 341]);
    await client.crm.associations.v4.basicApi.createDefault('contact', contact.id, 'company', company.id);

    const fromDeal = await client.crm.associations.v4.basicApi.getPage('deals', deal.id, 'companies');
    expect(fromDeal.results).toHaveLength(1);
    expect(String(fromDeal.results[0]!.toObjectId)).toBe(company.id);
    expect(fromDeal.results[0]!.associationTypes.map((t) => t.typeId).sort((a, b) => a - b)).toEqual([5, 341]);

    const fromCompany = await client.crm.associations.v4.basicApi.getPage('companies', company.id, 'contacts');
    expect(fromCompany.results.map((r) => String(r.toObjectId))).toEqual([contact.id]);
    expect(fromCompany.results[0]!.associationTypes.map((t) => t.typeId).sort((a, b) => a - b)).toEqual([2, 280]);
  });

  it('creates in batch (201), and answers 207 naming inputs whose records do not exist', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'D' }, associations: [] });
    const contacts = await client.crm.contacts.batchApi.create({ inputs: [{ properties: { email: 'a@x.io' }, associations: [] }, { properties: { email: 'b@x.io' }, associations: [] }] });
    const ids = contacts.results.map((c) => c.id);
    const types = [{ associationCategory: 'HUBSPOT_DEFINED' as any, associationTypeId: 3 }];

    const ok = await client.crm.associations.v4.batchApi.create('deals', 'contacts', { inputs: ids.map((id) => ({ _from: { id: deal.id }, to: { id }, types })) });
    expect(ok.results).toHaveLength(2);
    expect((ok as any).numErrors ?? 0).toBe(0);
    expect((await client.crm.associations.v4.basicApi.getPage('deals', deal.id, 'contacts')).results.map((r) => String(r.toObjectId)).sort()).toEqual([...ids].sort());
    expect((await client.crm.associations.v4.basicApi.getPage('contacts', ids[0]!, 'deals')).results[0]!.associationTypes[0]!.typeId).toBe(4);

    const partial: any = await client.crm.associations.v4.batchApi.create('deals', 'contacts', {
      inputs: [
        { _from: { id: deal.id }, to: { id: ids[0]! }, types },
        { _from: { id: deal.id }, to: { id: '424242' }, types },
      ],
    });
    expect(partial.numErrors).toBe(1);
    expect(partial.results).toHaveLength(1);
    // HubSpot's words for a record it does not hold (HubSpot/hubspot-api-nodejs#646): the id is named in the context, not the message.
    expect(partial.errors[0].message).toBe('One or more associations are invalid');
    expect(JSON.stringify(partial.errors[0].context)).toContain('424242');

    const wrongType = await errorOf(client.crm.associations.v4.batchApi.create('deals', 'contacts', { inputs: [{ _from: { id: deal.id }, to: { id: ids[0]! }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as any, associationTypeId: 279 }] }] }));
    expect(wrongType.code).toBe(400);
    expect(wrongType.body.message).toContain('279');
  });
});
