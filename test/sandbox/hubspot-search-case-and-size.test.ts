// HubSpot sandbox, the search guide's case rules and size limit (docs/crm-wire-behaviour.md, HubSpot
// search): text compares without case, except an enumeration (with case under every operator) and IN /
// NOT_IN on a string property (values "must be lowercase": one with an upper-case letter matches nothing);
// a request body over 3,000 characters is refused with a 400.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';

let sandbox: HubSpotSandbox;
let client: Client;
type F = { propertyName: string; operator: string; value?: string; values?: string[] };

/** Names of the deals a search finds, sorted. */
async function names(filters: F[]): Promise<string[]> {
  const page = await client.crm.deals.searchApi.doSearch({ filterGroups: [{ filters: filters as any }], sorts: [], properties: ['dealname'], limit: 200, after: undefined as any });
  return page.results.map((r) => r.properties.dealname!).sort();
}

/** A search sent as this exact text, answered as status and JSON. */
async function rawSearch(body: string): Promise<{ status: number; json: any }> {
  const answer = await fetch(`${sandbox.baseUrl}/crm/v3/objects/deals/search`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.accessToken}`, 'content-type': 'application/json' }, body });
  return { status: answer.status, json: await answer.json() };
}

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ searchPerSecond: 1000, tenSecondlyLimit: 100_000 });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  await client.crm.properties.coreApi.create('deals', {
    name: 'tier',
    label: 'Tier',
    type: 'enumeration' as any,
    fieldType: 'select' as any,
    groupName: 'dealinformation',
    options: [
      { label: 'Gold', value: 'Gold', displayOrder: 0, hidden: false },
      { label: 'silver', value: 'silver', displayOrder: 1, hidden: false },
    ],
  });
  const deals: Record<string, string>[] = [
    { dealname: 'Prod-ABC|Dim-X', tier: 'Gold' },
    { dealname: 'prod-abc|dim-y', tier: 'silver' },
    { dealname: 'Ünïcode "Quoted"' },
  ];
  for (const properties of deals) {
    await client.crm.deals.basicApi.create({ properties, associations: [] });
  }
});
afterAll(() => sandbox.stop());

describe('HubSpot sandbox: case in search filters', () => {
  it('IN on a string property matches the stored value lowercased: a value with an upper-case letter matches nothing', async () => {
    expect(await names([{ propertyName: 'dealname', operator: 'IN', values: ['prod-abc|dim-x'] }])).toEqual(['Prod-ABC|Dim-X']);
    expect(await names([{ propertyName: 'dealname', operator: 'IN', values: ['Prod-ABC|Dim-X'] }])).toEqual([]);
    expect(await names([{ propertyName: 'dealname', operator: 'IN', values: ['PROD-ABC|DIM-Y', 'prod-abc|dim-y'] }])).toEqual(['prod-abc|dim-y']);
    expect(await names([{ propertyName: 'dealname', operator: 'IN', values: ['ünïcode "quoted"'] }])).toEqual(['Ünïcode "Quoted"']);
  });

  it('NOT_IN on a string property leaves out only what a lowercase value names', async () => {
    expect(await names([{ propertyName: 'dealname', operator: 'NOT_IN', values: ['prod-abc|dim-x'] }])).toEqual(['prod-abc|dim-y', 'Ünïcode "Quoted"']);
    expect(await names([{ propertyName: 'dealname', operator: 'NOT_IN', values: ['Prod-ABC|Dim-X'] }])).toEqual(['Prod-ABC|Dim-X', 'prod-abc|dim-y', 'Ünïcode "Quoted"']);
  });

  it('other operators on a string property still ignore case', async () => {
    expect(await names([{ propertyName: 'dealname', operator: 'EQ', value: 'PROD-ABC|DIM-X' }])).toEqual(['Prod-ABC|Dim-X']);
    expect(await names([{ propertyName: 'dealname', operator: 'NEQ', value: 'PROD-ABC|DIM-X' }])).toEqual(['prod-abc|dim-y', 'Ünïcode "Quoted"']);
  });

  it('an enumeration compares with case under every operator', async () => {
    expect(await names([{ propertyName: 'tier', operator: 'EQ', value: 'Gold' }])).toEqual(['Prod-ABC|Dim-X']);
    expect(await names([{ propertyName: 'tier', operator: 'EQ', value: 'gold' }])).toEqual([]);
    expect(await names([{ propertyName: 'tier', operator: 'IN', values: ['Gold', 'Silver'] }])).toEqual(['Prod-ABC|Dim-X']);
    expect(await names([{ propertyName: 'tier', operator: 'IN', values: ['gold', 'silver'] }])).toEqual(['prod-abc|dim-y']);
    expect(await names([{ propertyName: 'tier', operator: 'NOT_IN', values: ['gold'] }])).toEqual(['Prod-ABC|Dim-X', 'prod-abc|dim-y', 'Ünïcode "Quoted"']);
    expect(await names([{ propertyName: 'tier', operator: 'CONTAINS_TOKEN', value: 'GOLD' }])).toEqual([]);
  });
});

describe('HubSpot sandbox: a search body holds at most 3,000 characters', () => {
  /** A search body padded (in its properties list) to exactly `length` characters. */
  function bodyOf(length: number): string {
    const base = (pad: string) => JSON.stringify({ filterGroups: [{ filters: [{ propertyName: 'dealname', operator: 'HAS_PROPERTY' }] }], properties: ['dealname', pad], limit: 10 });
    const text = base('x'.repeat(length - base('').length));
    expect(text).toHaveLength(length);
    return text;
  }

  it('answers a body of 3,000 characters', async () => {
    const answer = await rawSearch(bodyOf(3000));
    expect(answer.status).toBe(200);
    expect(answer.json.total).toBe(3);
  });

  it('refuses a body of 3,001 characters with a 400 in HubSpot error shape', async () => {
    const answer = await rawSearch(bodyOf(3001));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect(answer.json.message).toContain('3001');
    expect(answer.json.message).toContain('3000');
    expect(typeof answer.json.correlationId).toBe('string');
  });

  it('counts the whole body, whitespace included, not only the filters', async () => {
    const compact = JSON.stringify({ filterGroups: [{ filters: [{ propertyName: 'dealname', operator: 'HAS_PROPERTY' }] }], limit: 10 });
    expect((await rawSearch(compact + ' '.repeat(3000 - compact.length))).status).toBe(200);
    expect((await rawSearch(compact + ' '.repeat(3001 - compact.length))).status).toBe(400);
  });
});
