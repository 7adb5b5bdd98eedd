// Look-ups by value (IN lists) with long, hostile values. A GET /query?q= carries the whole SOQL in its
// URI, and Salesforce refuses a URI past 16,384 bytes (414, a page rather than JSON): 200 values of 64
// characters that each URL-encode to hundreds of bytes must be looked up in as many requests as fit,
// never in one that is refused, and every value must still be found exactly as written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
const connector = () => createSalesforceConnector({ loginUrl: sandbox.loginUrl, retries: 0 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

/** 64 characters (the external id field's length): quotes, backslashes, %, &, +, spaces and non-ASCII. */
const hostile = (index: number) => `${String(index).padStart(3, '0')}'\\"%&+ é日本語ü€-${'ß'.repeat(64)}`.slice(0, 64);

const items = (values: string[]): UpsertItem[] => values.map((value, index) => ({ sourceId: `s${index}`, externalIdField: 'Commerce_Buyer_Id__c', externalId: value, fields: { Name: `Buyer ${index}` } }));

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
});
afterAll(() => sandbox?.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
});

describe('Salesforce look-ups by long, hostile values', () => {
  it('finds 200 long hostile external ids without a request past 16,384 bytes', async () => {
    const values = Array.from({ length: 200 }, (_, index) => hostile(index));
    expect(new Set(values).size).toBe(200);
    expect(values.every((value) => value.length === 64)).toBe(true);
    const sf = connector();
    expect((await sf.upsert('Account', items(values))).every((result) => result.ok)).toBe(true);
    await control(sandbox, 'POST', '/calls/reset');

    const found = await sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', values, ['Name']);
    expect([...found.keys()].sort()).toEqual([...values].sort());
    expect(found.get(values[7]!)).toMatchObject({ Name: 'Buyer 7' });
    const calls = await callCounts(sandbox);
    expect(calls['uri-too-long']).toBeUndefined();
    // Each value URL-encodes to about 400 bytes (the German sharp s alone is 6 of them): 30-odd a request.
    expect(calls.query).toBeGreaterThanOrEqual(5);
    expect(calls.query).toBeLessThanOrEqual(10);
  });

  it('short values still go 200 to a request', async () => {
    const values = Array.from({ length: 400 }, (_, index) => `b-${index}`);
    const sf = connector();
    await sf.upsert('Account', items(values));
    await control(sandbox, 'POST', '/calls/reset');
    const found = await sf.findWhereIn('Account', 'Commerce_Buyer_Id__c', values, ['Name']);
    expect(found).toHaveLength(400);
    expect((await callCounts(sandbox)).query).toBe(2);
  });
});
