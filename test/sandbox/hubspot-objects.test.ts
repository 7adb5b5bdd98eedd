// HubSpot sandbox, CRM objects v3 through @hubspot/api-client: basic calls, list paging, batch
// read/create/update/upsert with 200 and 207 answers, the 100-input limit, unique values, system
// properties, and the custom object under both of its names.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
let clock = Date.parse('2026-03-01T10:00:00.000Z');
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ now: () => new Date(clock) });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  await client.crm.properties.coreApi.create('deals', { name: 'commerce_offer_id', label: 'Commerce offer id', type: 'string' as any, fieldType: 'text' as any, groupName: 'dealinformation', hasUniqueValue: true });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'DELETE', '/calls');
  clock += 60_000;
});

describe('HubSpot sandbox: basic object calls', () => {
  it('creates, reads, updates and archives a company, keeping the system properties', async () => {
    const made = await client.crm.companies.basicApi.create({ properties: { name: 'Acme', domain: 'acme.example' }, associations: [] });
    expect(made.properties).toMatchObject({ name: 'Acme', domain: 'acme.example', hs_object_id: made.id, createdate: new Date(clock).toISOString() });
    expect(made.createdAt.toISOString()).toBe(new Date(clock).toISOString());

    clock += 5_000;
    const updated = await client.crm.companies.basicApi.update(made.id, { properties: { domain: 'acme.test' } });
    expect(updated.properties.domain).toBe('acme.test');
    expect(updated.properties.hs_lastmodifieddate).toBe(new Date(clock).toISOString());
    expect(updated.updatedAt.getTime()).toBe(clock);

    const read = await client.crm.companies.basicApi.getById(made.id, ['name', 'domain', 'country']);
    expect(read.properties).toMatchObject({ name: 'Acme', domain: 'acme.test' });
    expect(read.properties).not.toHaveProperty('country'); // no value: left out (the spec types values as text)
    expect(read.createdAt.getTime()).toBe(clock - 5_000);

    await client.crm.companies.basicApi.archive(made.id);
    const gone = await errorOf(client.crm.companies.basicApi.getById(made.id));
    expect(gone.code).toBe(404);
    expect(gone.body).toMatchObject({ category: 'OBJECT_NOT_FOUND' });
  });

  it('keeps lastmodifieddate on contacts as well as hs_lastmodifieddate', async () => {
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: 'ana@example.com' }, associations: [] });
    const read = await client.crm.contacts.basicApi.getById(contact.id, ['lastmodifieddate', 'hs_lastmodifieddate']);
    expect(read.properties.lastmodifieddate).toBe(new Date(clock).toISOString());
    expect(read.properties.hs_lastmodifieddate).toBe(new Date(clock).toISOString());
  });

  it('refuses unknown, read-only and badly typed properties with a VALIDATION_ERROR naming them, storing nothing', async () => {
    const before = (await control(sandbox, 'GET', '/records/deals')).length;
    const error = await errorOf(client.crm.deals.basicApi.create({ properties: { dealname: 'D', no_such_field: 'x', amount: 'ten', hs_object_id: '5' }, associations: [] }));
    expect(error.code).toBe(400);
    expect(error.body.category).toBe('VALIDATION_ERROR');
    expect(error.body.message).toContain('no_such_field');
    expect(error.body.message).toMatch(/ten.{0,3} was not a valid number/);
    expect(error.body.message).toContain('hs_object_id');
    expect((await control(sandbox, 'GET', '/records/deals')).length).toBe(before);
  });

  it('stores datetimes given as epoch milliseconds as ISO 8601', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'dated', closedate: String(Date.UTC(2026, 5, 30, 12)) }, associations: [] });
    expect(deal.properties.closedate).toBe('2026-06-30T12:00:00.000Z');
  });

  it('lists with after paging: every live record once, in id order', async () => {
    await control(sandbox, 'POST', '/reset');
    await client.crm.properties.coreApi.create('deals', { name: 'commerce_offer_id', label: 'Commerce offer id', type: 'string' as any, fieldType: 'text' as any, groupName: 'dealinformation', hasUniqueValue: true });
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await client.crm.deals.basicApi.create({ properties: { dealname: `L${i}` }, associations: [] })).id);
    await client.crm.deals.basicApi.archive(ids[3]!);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await client.crm.deals.basicApi.getPage(3, after);
      seen.push(...page.results.map((r) => r.id));
      after = page.paging?.next?.after;
      pages += 1;
    } while (after);
    expect(seen).toEqual(ids.filter((_, i) => i !== 3));
    expect(pages).toBe(2);
  });
});

describe('HubSpot sandbox: batch calls', () => {
  it('upserts 250 new deals in exactly 3 batch calls, then updates them by the same ids', async () => {
    const inputs = Array.from({ length: 250 }, (_, i) => ({ idProperty: 'commerce_offer_id', id: `offer-${i}`, properties: { dealname: `Offer ${i}`, amount: String(i) } }));
    const results = [];
    for (let i = 0; i < inputs.length; i += 100) results.push(await client.crm.deals.batchApi.upsert({ inputs: inputs.slice(i, i + 100) }));
    expect((await control(sandbox, 'GET', '/calls'))['deals.batch.upsert']).toBe(3);
    const all = results.flatMap((r) => r.results);
    expect(all).toHaveLength(250);
    expect(all.every((r) => r._new === true)).toBe(true);
    expect(new Set(all.map((r) => r.id)).size).toBe(250);
    expect(all.find((r) => r.properties.commerce_offer_id === 'offer-7')?.properties.amount).toBe('7');

    clock += 1_000;
    const again = await client.crm.deals.batchApi.upsert({ inputs: [{ idProperty: 'commerce_offer_id', id: 'offer-7', properties: { amount: '700' } }] });
    expect(again.results[0]).toMatchObject({ _new: false, id: all.find((r) => r.properties.commerce_offer_id === 'offer-7')!.id });
    expect(again.results[0]!.properties.amount).toBe('700');
    const stored = (await control(sandbox, 'GET', '/records/deals')) as { properties: Record<string, string> }[];
    expect(stored.filter((r) => r.properties.commerce_offer_id === 'offer-7')).toHaveLength(1);
  });

  it('refuses more than 100 inputs with a 400 VALIDATION_ERROR, writing none', async () => {
    const before = (await control(sandbox, 'GET', '/records/deals')).length;
    const inputs = Array.from({ length: 101 }, (_, i) => ({ properties: { dealname: `too many ${i}` }, associations: [] }));
    const error = await errorOf(client.crm.deals.batchApi.create({ inputs }));
    expect(error.code).toBe(400);
    expect(error.body.category).toBe('VALIDATION_ERROR');
    expect(error.body.message).toContain('101');
    expect((await control(sandbox, 'GET', '/records/deals')).length).toBe(before);
  });

  it('refuses an upsert whose idProperty is not a unique-value property', async () => {
    const error = await errorOf(client.crm.deals.batchApi.upsert({ inputs: [{ idProperty: 'dealname', id: 'x', properties: {} }] }));
    expect(error.code).toBe(400);
    expect(error.body.message).toContain('dealname is not a unique-value property');
  });

  it('answers 207 with numErrors and one error per failed input, the others done', async () => {
    const [a] = (await client.crm.deals.batchApi.create({ inputs: [{ properties: { dealname: 'A', commerce_offer_id: 'dup-1' }, associations: [] }] })).results;
    // The client types the answer as a union; numErrors and errors are on its 207 side.
    const created: any = await client.crm.deals.batchApi.create({
      inputs: [
        { properties: { dealname: 'B', commerce_offer_id: 'dup-1' }, associations: [] },
        { properties: { dealname: 'C', commerce_offer_id: 'fresh-1' }, associations: [] },
      ],
    });
    expect(created).toMatchObject({ status: 'COMPLETE', numErrors: 1 });
    expect(created.results.map((r: any) => r.properties.dealname)).toEqual(['C']);
    expect(created.errors![0]).toMatchObject({ status: 'error', category: 'CONFLICT' });
    expect(created.errors![0]!.message).toContain('dup-1');

    const updated: any = await client.crm.deals.batchApi.update({ inputs: [{ id: a!.id, properties: { amount: '5' } }, { id: '999999', properties: { amount: '6' } }] });
    expect(updated.numErrors).toBe(1);
    expect(updated.results[0]!.properties.amount).toBe('5');
    expect(updated.errors![0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['999999'] } });

    const read: any = await client.crm.deals.batchApi.read({ inputs: [{ id: a!.id }, { id: '999998' }], properties: ['dealname'], propertiesWithHistory: [] });
    expect(read.results.map((r: any) => r.id)).toEqual([a!.id]);
    expect(read.numErrors).toBe(1);

    const byUnique: any = await client.crm.deals.batchApi.read({ idProperty: 'commerce_offer_id', inputs: [{ id: 'fresh-1' }], properties: ['commerce_offer_id'], propertiesWithHistory: [] });
    expect(byUnique.results[0]!.properties.commerce_offer_id).toBe('fresh-1');
    expect(byUnique.numErrors ?? 0).toBe(0);
  });

  it('enforces unique values on single create and update with 409 CONFLICT', async () => {
    await client.crm.deals.basicApi.create({ properties: { dealname: 'U1', commerce_offer_id: 'u-1' }, associations: [] });
    const other = await client.crm.deals.basicApi.create({ properties: { dealname: 'U2', commerce_offer_id: 'u-2' }, associations: [] });
    expect((await errorOf(client.crm.deals.basicApi.create({ properties: { commerce_offer_id: 'u-1' }, associations: [] }))).code).toBe(409);
    const clash = await errorOf(client.crm.deals.basicApi.update(other.id, { properties: { commerce_offer_id: 'u-1' } }));
    expect(clash.code).toBe(409);
    expect(clash.body.category).toBe('CONFLICT');
    expect((await client.crm.deals.basicApi.getById(other.id, ['commerce_offer_id'])).properties.commerce_offer_id).toBe('u-2');
  });
});

describe('HubSpot sandbox: contacts are one per email', () => {
  it('refuses a second contact with the same email (409, naming the existing id), whatever its case', async () => {
    const first = await client.crm.contacts.basicApi.create({ properties: { email: 'Pat@Example.com' }, associations: [] });
    const second = await errorOf(client.crm.contacts.basicApi.create({ properties: { email: 'pat@example.com' }, associations: [] }));
    expect(second.code).toBe(409);
    expect(second.body).toMatchObject({ category: 'CONFLICT', message: `Contact already exists. Existing ID: ${first.id}` });
  });

  it('upserts contacts by email: the person on a second buyer is the same contact', async () => {
    const made = await client.crm.contacts.batchApi.upsert({ inputs: [{ idProperty: 'email', id: 'lee@example.com', properties: { firstname: 'Lee' } }] });
    expect(made.results[0]).toMatchObject({ _new: true, properties: { email: 'lee@example.com', firstname: 'Lee' } });
    const again = await client.crm.contacts.batchApi.upsert({ inputs: [{ idProperty: 'email', id: 'lee@example.com', properties: { lastname: 'Park' } }] });
    expect(again.results[0]).toMatchObject({ _new: false, id: made.results[0]!.id });
    const stored = (await control(sandbox, 'GET', '/records/contacts')) as { properties: Record<string, string> }[];
    expect(stored.filter((c) => c.properties.email === 'lee@example.com')).toHaveLength(1);
    // The definition says what HubSpot's says: email is not a unique-value property.
    expect((await client.crm.properties.coreApi.getByName('contacts', 'email')).hasUniqueValue).toBe(false);
  });
});

describe('HubSpot sandbox: the custom object', () => {
  it('is reachable as 2-1234567 and as p4242_marketplace_entitlement, upserting by its unique entitlement_id; its bare name is an unknown type (400)', async () => {
    const upserted = await client.crm.objects.batchApi.upsert('p4242_marketplace_entitlement', { inputs: [{ idProperty: 'entitlement_id', id: 'ent-1', properties: { entitlement_name: 'Gold' } }] });
    const id = upserted.results[0]!.id;
    const byTypeId = await client.crm.objects.basicApi.getById('2-1234567', id, ['entitlement_id', 'entitlement_name']);
    expect(byTypeId.properties).toMatchObject({ entitlement_id: 'ent-1', entitlement_name: 'Gold' });
    const unknown = await errorOf(client.crm.objects.basicApi.getById('no_such_object', id));
    expect(unknown.code).toBe(400);
    expect(unknown.body.message).toContain('no_such_object');
    // HubSpot stopped taking a custom object's base name in June 2025.
    const bare = await errorOf(client.crm.objects.basicApi.getById('marketplace_entitlement', id));
    expect(bare.code).toBe(400);
    expect(bare.body).toMatchObject({ category: 'VALIDATION_ERROR', message: 'Unable to infer object type from: marketplace_entitlement' });
  });
});
