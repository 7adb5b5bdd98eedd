// The HubSpot connector finding records by a plain key (products by commerce_price_key, which HubSpot
// cannot make unique) against the sandbox, which follows the search guide's rules (docs/crm-wire-behaviour.md,
// HubSpot, Search): IN on a string property matches only lowercase values (so mixed-case keys are sent
// lowercased and each record is paired back with its own key), and a search body over 3,000 characters
// is refused with a 400 (so long keys are split by the body's length, not only a hundred a search).
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmError } from '../../crm/connector.ts';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let hubspot: HubSpotSandbox;
const connect = () => createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', portalId: '4242' }, { crmAccessToken: hubspot.accessToken });
const calls = async (): Promise<Record<string, number>> => control(hubspot, 'GET', '/calls');
const products = async (): Promise<{ id: string; properties: Record<string, string> }[]> => {
  const body = await control(hubspot, 'GET', '/records/products');
  return Array.isArray(body) ? body : (body.records ?? body.results);
};
const item = (key: string, name: string) => ({ sourceId: key, externalIdField: 'commerce_price_key', externalId: key, fields: { name } });

beforeAll(async () => {
  hubspot = await startHubSpotSandbox({ tenSecondlyLimit: 100_000, dailyLimit: 10_000_000, searchPerSecond: 1000 });
  const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken }, { catalogue: true });
  expect(report.problems).toEqual([]);
});
afterAll(() => hubspot?.stop());

describe('HubSpot: products found again by mixed-case and hostile keys', () => {
  const keys = ['Prod-ABC|Dim-X', 'prod-abc|dim-y', 'Quote "double" \'single\'|Dim', 'Ünïcode-Ωmega|ÄÖÜ', 'back\\slash|DIM'];

  it('a second upsert updates each product made by the first, by its own key', async () => {
    const crm = connect();
    const first = await crm.upsert('products', keys.map((key) => item(key, `first ${key}`)));
    expect(first.every((result) => result.ok && result.created)).toBe(true);
    const idOf = new Map(first.map((result) => [result.sourceId, result.ok ? result.crmId : '']));

    const again = await connect().upsert('products', keys.map((key) => item(key, `second ${key}`)));
    expect(again.map((result) => result.ok && !result.created)).toEqual(keys.map(() => true));
    expect(again.map((result) => (result.ok ? result.crmId : ''))).toEqual(keys.map((key) => idOf.get(key)));
    const stored = await products();
    expect(stored).toHaveLength(keys.length);
    for (const key of keys) expect(stored.find((product) => product.id === idOf.get(key))?.properties).toMatchObject({ commerce_price_key: key, name: `second ${key}` });
  });

  it('a key takes the product holding it exactly, else one holding it in another case', async () => {
    const client = new Client({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
    const make = async (key: string) => (await client.crm.products.basicApi.create({ properties: { name: key, commerce_price_key: key }, associations: [] })).id;
    const lower = await make('case|a');
    const exact = await make('Case|A');
    const legacy = await make('legacy-key|seats');
    const results = await connect().upsert('products', [item('Case|A', 'exact'), item('Legacy-Key|Seats', 'folded')]);
    expect(results.map((result) => result.ok && !result.created && result.crmId)).toEqual([exact, legacy]);
    const stored = new Map((await products()).map((product) => [product.id, product.properties.name]));
    expect([stored.get(exact), stored.get(lower), stored.get(legacy)]).toEqual(['exact', 'case|a', 'folded']);
    for (const id of [lower, exact, legacy]) await client.crm.products.basicApi.archive(id);
  });

  it('findWhereIn finds exactly the products holding the keys asked for, in any case', async () => {
    const found = await connect().findWhereIn('products', 'commerce_price_key', ['Prod-ABC|Dim-X', 'ÜNÏCODE-ΩMEGA|ÄÖÜ', 'absent|KEY'], ['name']);
    expect(found.map((record) => record.commerce_price_key).sort()).toEqual(['Prod-ABC|Dim-X', 'Ünïcode-Ωmega|ÄÖÜ']);
  });
});

describe('HubSpot: a search body kept within 3,000 characters', () => {
  // 300 keys of 60 characters: a hundred of them alone would be a body of over 6,000 characters.
  const long = Array.from({ length: 300 }, (_, i) => `Product-${String(i).padStart(4, '0')}|Dimension-Key-${'X'.repeat(60)}`.slice(0, 60));

  it('300 long keys are made once, found again and updated, never with a body the sandbox refuses', async () => {
    expect(new Set(long).size).toBe(300);
    expect(long.every((key) => key.length === 60)).toBe(true);
    const made = await connect().upsert('products', long.map((key) => item(key, 'made')));
    expect(made.every((result) => result.ok && result.created)).toBe(true);
    await control(hubspot, 'DELETE', '/calls');
    const again = await connect().upsert('products', long.map((key) => item(key, 'again')));
    expect(again.every((result) => result.ok && !result.created)).toBe(true);
    expect(again.map((result) => (result.ok ? result.crmId : ''))).toEqual(made.map((result) => (result.ok ? result.crmId : '')));
    // 300 keys of 62 JSON characters take at least 7 searches at under 3,000 characters each.
    expect((await calls())['products.search']).toBeGreaterThanOrEqual(7);
    const found = await connect().findWhereIn('products', 'commerce_price_key', long, ['name']);
    expect(found).toHaveLength(300);
    expect(found.every((record) => record.name === 'again')).toBe(true);
  });

  it('a window read whose narrowing would pass 3,000 characters reads the window unnarrowed (the flow decides record by record)', async () => {
    const narrow = { field: 'commerce_price_key', oneOf: long.slice(0, 90) };
    const pages: Record<string, unknown>[][] = [];
    for await (const page of connect().changedSince('products', { since: new Date(0), until: new Date(Date.now() + 60_000), fields: ['commerce_price_key'], pageSize: 200, narrow })) pages.push(page);
    // Every product of the window: the 300 long keys and the five of the first test.
    expect(pages.flat()).toHaveLength(305);
  });

  it('a read whose properties alone make the body too long is an error naming the limit, and nothing is sent', async () => {
    await control(hubspot, 'DELETE', '/calls');
    const many = Array.from({ length: 120 }, (_, i) => `a_property_with_a_long_name_${i}`);
    const error = await connect()
      .findWhereIn('products', 'commerce_price_key', ['Prod-ABC|Dim-X'], many)
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'SEARCH_TOO_LONG', retryable: false });
    expect((error as Error).message).toContain('3000 characters');
    expect((error as Error).message).toContain('123 properties');
    expect((await calls())['products.search'] ?? 0).toBe(0);
  });
});
