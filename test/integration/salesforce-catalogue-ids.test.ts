// Salesforce setup with the catalogue chosen (issue #28 section 1) against the Salesforce sandbox: setup
// makes PricebookEntry.Commerce_Price_Entry_Key__c (External ID, Unique), grants it, and records the ids
// of the connection's price book and of the standard price book in the report's catalogueIds, as the
// org's own queries find them; prices then upsert by the key in both books, a key names one entry, and a
// second entry with a key already taken is refused. Without the catalogue chosen, setup leaves Product2
// and PricebookEntry as they were. An org with the project's metadata deployed has the key from the start.
import type { Connection } from 'jsforce';
import { describe, expect, it } from 'vitest';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { soqlString } from '../../crm/salesforce/soql.ts';
import { salesforceOrgPerTest } from '../support/salesforce-org-per-test.ts';

// A price book name with quotes, a backslash and non-Latin text: it goes into a SOQL WHERE.
const BOOK = `Acme's "EU" \\ 価格表`;
const KEY = 'Commerce_Price_Entry_Key__c';

describe('Salesforce setup: catalogue ids and the price entry key', () => {
  const { start } = salesforceOrgPerTest();
  const entryFields = async (conn: Connection) => new Map((await conn.sobject('PricebookEntry').describe()).fields.map((field) => [field.name, field]));

  it('makes the price entry key, records both price books, and prices upsert by the key in each book', async () => {
    const { conn, userId } = await start('missing');
    expect((await entryFields(conn)).has(KEY)).toBe(false);

    const report = await setUpSalesforce(conn, userId, { catalogue: { priceBook: BOOK } });
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['PricebookEntry.Commerce_Price_Entry_Key__c (Text(255), external id, unique)', `price book "${BOOK}" (active)`]));
    const book = (await conn.query<{ Id: string }>(`SELECT Id FROM Pricebook2 WHERE Name = ${soqlString(BOOK)}`)).records;
    const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).records;
    expect(book).toHaveLength(1);
    expect(standard).toHaveLength(1);
    expect(report.catalogueIds).toEqual({ priceBookId: book[0]!.Id, standardPriceBookId: standard[0]!.Id });
    expect((await entryFields(conn)).get(KEY)).toMatchObject({ externalId: true, unique: true, updateable: true, type: 'string', length: 255 });

    // The integration user upserts prices by the key: the standard price first, then the book's.
    const [product] = await conn.sobject('Product2').upsert([{ Name: 'Seats', IsActive: true, Commerce_Product_Id__c: 'prod-1', Commerce_Dimension_Key__c: 'seats', Commerce_Price_Key__c: 'prod-1|seats' }], 'Commerce_Price_Key__c', { allOrNone: false });
    const productId = (product as { id: string }).id;
    const upsert = (rows: Record<string, unknown>[]) => conn.sobject('PricebookEntry').upsert(rows, KEY, { allOrNone: false }) as Promise<{ success: boolean; created?: boolean; id?: string; errors?: unknown[] }[]>;
    const [standardEntry] = await upsert([{ [KEY]: 'prod-1|seats|USD|standard', Pricebook2Id: standard[0]!.Id, Product2Id: productId, UnitPrice: 10, IsActive: true }]);
    expect(standardEntry).toMatchObject({ success: true, created: true });
    const [entry] = await upsert([{ [KEY]: 'prod-1|seats|USD', Pricebook2Id: book[0]!.Id, Product2Id: productId, UnitPrice: 9.5, IsActive: true }]);
    expect(entry).toMatchObject({ success: true, created: true });
    // The same key again is the same entry: its price changes, nothing is made.
    const [again] = await upsert([{ [KEY]: 'prod-1|seats|USD', UnitPrice: 9 }]);
    expect(again).toMatchObject({ success: true, created: false, id: entry!.id });
    const prices = (await conn.query<{ UnitPrice: number; Pricebook2Id: string }>(`SELECT UnitPrice, Pricebook2Id FROM PricebookEntry WHERE ${KEY} = 'prod-1|seats|USD'`)).records;
    expect(prices).toEqual([expect.objectContaining({ UnitPrice: 9, Pricebook2Id: book[0]!.Id })]);
    // A key is unique: a second entry made with a key already taken is refused.
    const [other] = await conn.sobject('Product2').upsert([{ Name: 'Storage', IsActive: true, Commerce_Product_Id__c: 'prod-1', Commerce_Dimension_Key__c: 'gb', Commerce_Price_Key__c: 'prod-1|gb' }], 'Commerce_Price_Key__c', { allOrNone: false });
    const [taken] = (await conn.sobject('PricebookEntry').create([{ [KEY]: 'prod-1|seats|USD|standard', Pricebook2Id: standard[0]!.Id, Product2Id: (other as { id: string }).id, UnitPrice: 1, IsActive: true }], { allOrNone: false })) as { success: boolean; errors: { statusCode: string }[] }[];
    expect(taken).toMatchObject({ success: false, errors: [expect.objectContaining({ statusCode: 'DUPLICATE_VALUE' })] });

    // A second run makes nothing and finds the same ids.
    const second = await setUpSalesforce(conn, userId, { catalogue: { priceBook: BOOK } });
    expect(second).toMatchObject({ created: [], problems: [], catalogueIds: report.catalogueIds });
  });

  it('without the catalogue chosen makes none of its fields and records no ids', async () => {
    const { conn, userId } = await start('missing');
    const report = await setUpSalesforce(conn, userId);
    expect(report.problems).toEqual([]);
    expect(report.catalogueIds).toBeUndefined();
    expect((await entryFields(conn)).has(KEY)).toBe(false);
    expect((await conn.sobject('Product2').describe()).fields.map((field) => field.name)).not.toContain('Commerce_Price_Key__c');
  });

  it('an org with the project metadata deployed has the price entry key from the start', async () => {
    const { conn } = await start('deployed');
    expect((await entryFields(conn)).get(KEY)).toMatchObject({ externalId: true, unique: true, updateable: true });
  });
});
