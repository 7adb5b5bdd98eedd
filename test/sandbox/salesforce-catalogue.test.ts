// Salesforce sandbox: the product catalogue as jsforce 3 reaches it (issue #28) — Product2 with the
// project's catalogue keys, the standard price book every org has, PricebookEntry (a standard price
// before any custom one, one price per book and currency, UseStandardPrice) and OpportunityLineItem (an
// active entry of the Opportunity's price book and currency, one of unit or total price), with the
// Opportunity's Amount the sum of its line items. Expected values are Salesforce's documented and
// reported refusals (docs/crm-wire-behaviour.md, "Products, price books and opportunity products").
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const now = () => new Date('2026-03-01T09:00:00.000Z');
const idOf = (result: unknown) => (result as { id: string }).id;
const errorsOf = (result: unknown) => (result as { errors: { statusCode: string; message: string; fields: string[] }[] }).errors;
/** Quotes, a backslash and non-Latin text: what a commerce id or product name may hold. */
const HOSTILE_PRODUCT = "prod-'quoted'\\back-日本";

async function standardPricebookId(conn: Connection): Promise<string> {
  const found = await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true');
  expect(found.records).toHaveLength(1);
  return found.records[0]!.Id;
}

/** A product with a standard price, a custom price book with its price, and an Opportunity. */
async function catalogue(conn: Connection, options: { listPrice?: number } = {}) {
  const standard = await standardPricebookId(conn);
  const product = idOf(await conn.sobject('Product2').create({ Name: 'Harbor Containers: CPU hours', ProductCode: 'HC-CPU', IsActive: true, Commerce_Product_Id__c: 'prod-000001', Commerce_Dimension_Key__c: 'cpu_hours', Commerce_Price_Key__c: 'prod-000001|cpu_hours' }));
  const standardEntry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 100, IsActive: true }));
  const book = idOf(await conn.sobject('Pricebook2').create({ Name: 'Commerce catalogue', IsActive: true }));
  const entry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: product, UnitPrice: options.listPrice ?? 80, IsActive: true }));
  const account = idOf(await conn.sobject('Account').create({ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }));
  const opportunity = idOf(await conn.sobject('Opportunity').create({ Name: 'Acme offer', StageName: 'Prospecting', CloseDate: '2026-06-30', AccountId: account, Amount: 5000 }));
  return { standard, product, standardEntry, book, entry, account, opportunity };
}

describe('Salesforce sandbox: products, price books and opportunity products', () => {
  let sandbox: SalesforceSandbox;
  let conn: Connection;
  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ now });
  });
  afterAll(() => sandbox.stop());
  beforeEach(async () => {
    await control(sandbox, 'POST', '/reset');
    ({ conn } = await clientCredentialsConnection(sandbox));
  });

  it('describes the four objects as Salesforce does: derived fields read-only, references create-only, Opportunity.Pricebook2Id and its OpportunityLineItems', async () => {
    const global = (await conn.describeGlobal()).sobjects.map((s) => s.name);
    expect(global).toEqual(expect.arrayContaining(['Product2', 'Pricebook2', 'PricebookEntry', 'OpportunityLineItem']));
    const flags = async (object: string) => new Map((await conn.sobject(object).describe()).fields.map((f) => [f.name, f]));

    const product = await flags('Product2');
    expect(product.get('Name')).toMatchObject({ nillable: false, createable: true, updateable: true });
    expect(product.get('IsActive')).toMatchObject({ type: 'boolean', defaultValue: false });
    expect(product.get('Commerce_Price_Key__c')).toMatchObject({ externalId: true, unique: true, idLookup: true });
    expect(product.get('Commerce_Product_Id__c')).toMatchObject({ externalId: true, unique: false });

    const book = await flags('Pricebook2');
    expect(book.get('IsStandard')).toMatchObject({ type: 'boolean', createable: false, updateable: false });

    const entry = await flags('PricebookEntry');
    expect(entry.get('Pricebook2Id')).toMatchObject({ type: 'reference', referenceTo: ['Pricebook2'], createable: true, updateable: false, nillable: false });
    expect(entry.get('Product2Id')).toMatchObject({ referenceTo: ['Product2'], createable: true, updateable: false });
    expect(entry.get('Name')).toMatchObject({ createable: false, updateable: false });
    expect(entry.get('UnitPrice')).toMatchObject({ type: 'currency', label: 'List Price', createable: true, updateable: true });
    expect(entry.get('UseStandardPrice')).toMatchObject({ type: 'boolean', defaultValue: false });

    const line = await flags('OpportunityLineItem');
    expect(line.get('OpportunityId')).toMatchObject({ createable: true, updateable: false });
    expect(line.get('PricebookEntryId')).toMatchObject({ createable: true, updateable: false });
    for (const derived of ['Product2Id', 'Name', 'ProductCode', 'ListPrice']) expect(line.get(derived)).toMatchObject({ createable: false, updateable: false });
    expect(line.get('Quantity')).toMatchObject({ type: 'double', precision: 12, scale: 2, nillable: false });
    expect(line.get('TotalPrice')).toMatchObject({ type: 'currency', createable: true, updateable: true });

    const opportunity = await conn.sobject('Opportunity').describe();
    expect(opportunity.fields.find((f) => f.name === 'Pricebook2Id')).toMatchObject({ referenceTo: ['Pricebook2'], relationshipName: 'Pricebook2', createable: true, updateable: true });
    expect(opportunity.childRelationships).toEqual(expect.arrayContaining([expect.objectContaining({ childSObject: 'OpportunityLineItem', field: 'OpportunityId', relationshipName: 'OpportunityLineItems' })]));
    expect((await conn.sobject('Product2').describe()).childRelationships).toEqual(expect.arrayContaining([expect.objectContaining({ childSObject: 'PricebookEntry', relationshipName: 'PricebookEntries' })]));
  });

  it('has one standard price book, active, found by IsStandard = true, kept across a reset; IsStandard is never written', async () => {
    const found = await conn.query<{ Id: string; Name: string; IsActive: boolean }>('SELECT Id, Name, IsActive FROM Pricebook2 WHERE IsStandard = true');
    expect(found.records).toEqual([expect.objectContaining({ Name: 'Standard Price Book', IsActive: true })]);
    const [refused] = await conn.sobject('Pricebook2').create([{ Name: 'Another standard', IsStandard: true }], { allOrNone: false });
    expect(errorsOf(refused)).toEqual([expect.objectContaining({ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['IsStandard'] })]);
    await control(sandbox, 'POST', '/reset');
    expect(await standardPricebookId(conn)).toBe(found.records[0]!.Id);
  });

  it('refuses a custom price before the standard one (STANDARD_PRICE_NOT_DEFINED), a second price of a product in one book (FIELD_INTEGRITY_EXCEPTION), and a list price missing', async () => {
    const standard = await standardPricebookId(conn);
    const product = idOf(await conn.sobject('Product2').create({ Name: 'Widget', ProductCode: 'W-1', IsActive: true }));
    const book = idOf(await conn.sobject('Pricebook2').create({ Name: 'Partner prices', IsActive: true }));

    const [early] = await conn.sobject('PricebookEntry').create([{ Pricebook2Id: book, Product2Id: product, UnitPrice: 90, IsActive: true }], { allOrNone: false });
    expect(errorsOf(early)).toEqual([{ statusCode: 'STANDARD_PRICE_NOT_DEFINED', message: 'Before creating a custom price, create a standard price.', fields: [] }]);

    const [noPrice] = await conn.sobject('PricebookEntry').create([{ Pricebook2Id: standard, Product2Id: product, IsActive: true }], { allOrNone: false });
    expect(errorsOf(noPrice)).toEqual([{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [UnitPrice]', fields: ['UnitPrice'] }]);

    // An inactive standard price is no standard price for a custom one.
    const dormant = idOf(await conn.sobject('Product2').create({ Name: 'Dormant', IsActive: false }));
    await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: dormant, UnitPrice: 5, IsActive: false });
    const [onInactive] = await conn.sobject('PricebookEntry').create([{ Pricebook2Id: book, Product2Id: dormant, UnitPrice: 4, IsActive: false }], { allOrNone: false });
    expect(errorsOf(onInactive)).toEqual([{ statusCode: 'STANDARD_PRICE_NOT_DEFINED', message: 'Before creating a custom price, create a standard price.', fields: [] }]);

    const standardEntry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 100, IsActive: true }));
    const results = await conn.sobject('PricebookEntry').create(
      [
        { Pricebook2Id: book, Product2Id: product, UnitPrice: 90, IsActive: true },
        { Pricebook2Id: book, Product2Id: product, UnitPrice: 85, IsActive: true },
        { Pricebook2Id: standard, Product2Id: product, UnitPrice: 101, IsActive: true },
      ],
      { allOrNone: false },
    );
    expect(results[0]).toMatchObject({ success: true });
    const duplicate = { statusCode: 'FIELD_INTEGRITY_EXCEPTION', message: 'This price definition already exists in this price book', fields: [] };
    expect(errorsOf(results[1])).toEqual([duplicate]);
    expect(errorsOf(results[2])).toEqual([duplicate]);

    // The entry shows its product's name and code, read-only, and follows a rename.
    await conn.sobject('Product2').update({ Id: product, Name: "Widget 'Pro'", ProductCode: 'W-2' });
    const entries = await conn.query<{ Id: string; Name: string; ProductCode: string; UnitPrice: number }>(`SELECT Id, Name, ProductCode, UnitPrice FROM PricebookEntry WHERE Product2Id = '${product}' ORDER BY UnitPrice`);
    expect(entries.records.map((r) => [r.Name, r.ProductCode, r.UnitPrice])).toEqual([["Widget 'Pro'", 'W-2', 90], ["Widget 'Pro'", 'W-2', 100]]);
    const [rename] = await conn.sobject('PricebookEntry').update([{ Id: standardEntry, Name: 'Renamed' }], { allOrNone: false });
    expect(errorsOf(rename)).toEqual([expect.objectContaining({ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['Name'] })]);
    const [move] = await conn.sobject('PricebookEntry').update([{ Id: idOf(results[0]), Pricebook2Id: standard }], { allOrNone: false });
    expect(errorsOf(move)).toEqual([expect.objectContaining({ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['Pricebook2Id'] })]);
  });

  it('UseStandardPrice: the entry takes the standard price and follows it; a list price beside it, or on the standard book, is a field integrity exception', async () => {
    const { standard, product, standardEntry } = await catalogue(conn);
    const book = idOf(await conn.sobject('Pricebook2').create({ Name: 'Follows standard', IsActive: true }));

    const [withPrice] = await conn.sobject('PricebookEntry').create([{ Pricebook2Id: book, Product2Id: product, UseStandardPrice: true, UnitPrice: 70, IsActive: true }], { allOrNone: false });
    expect(errorsOf(withPrice)).toEqual([{ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message: 'field integrity exception', fields: [] }]);
    const [onStandard] = await conn.sobject('PricebookEntry').update([{ Id: standardEntry, UseStandardPrice: true }], { allOrNone: false });
    expect(errorsOf(onStandard)).toEqual([expect.objectContaining({ statusCode: 'FIELD_INTEGRITY_EXCEPTION', fields: ['UseStandardPrice'] })]);

    const follows = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: product, UseStandardPrice: true, IsActive: true }));
    expect(await conn.sobject('PricebookEntry').retrieve(follows)).toMatchObject({ UnitPrice: 100, UseStandardPrice: true });
    await conn.sobject('PricebookEntry').update({ Id: standardEntry, UnitPrice: 120 });
    expect(await conn.sobject('PricebookEntry').retrieve(follows)).toMatchObject({ UnitPrice: 120 });
    const [ownPrice] = await conn.sobject('PricebookEntry').update([{ Id: follows, UnitPrice: 110 }], { allOrNone: false });
    expect(errorsOf(ownPrice)).toEqual([{ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message: 'field integrity exception', fields: [] }]);
    // Turning it off first, then a price of its own: as Salesforce Help 000193277 says to.
    await conn.sobject('PricebookEntry').update({ Id: follows, UseStandardPrice: false });
    await conn.sobject('PricebookEntry').update({ Id: follows, UnitPrice: 110 });
    expect(await conn.sobject('PricebookEntry').retrieve(follows)).toMatchObject({ UnitPrice: 110, UseStandardPrice: false });
    expect(standard).toBeTruthy();
  });

  it('upserts products by Commerce_Price_Key__c (hostile text too) and refuses an upsert by Commerce_Product_Id__c that two dimensions share', async () => {
    const key = `${HOSTILE_PRODUCT}|"seats"`;
    const [made] = await conn.sobject('Product2').upsert([{ Name: 'Seats — 日本', IsActive: true, Commerce_Product_Id__c: HOSTILE_PRODUCT, Commerce_Dimension_Key__c: '"seats"', Commerce_Price_Key__c: key }], 'Commerce_Price_Key__c', { allOrNone: false });
    expect(made).toMatchObject({ success: true, created: true });
    const [again] = await conn.sobject('Product2').upsert([{ Name: 'Seats v2', Commerce_Price_Key__c: key }], 'Commerce_Price_Key__c', { allOrNone: false });
    expect(again).toMatchObject({ success: true, created: false, id: idOf(made) });
    await conn.sobject('Product2').upsert([{ Name: 'Storage', Commerce_Product_Id__c: HOSTILE_PRODUCT, Commerce_Dimension_Key__c: 'gb', Commerce_Price_Key__c: `${HOSTILE_PRODUCT}|gb` }], 'Commerce_Price_Key__c', { allOrNone: false });

    const escaped = HOSTILE_PRODUCT.replaceAll('\\', '\\\\').replaceAll("'", "\\'");
    const found = await conn.query<{ Name: string; Commerce_Dimension_Key__c: string }>(`SELECT Name, Commerce_Dimension_Key__c FROM Product2 WHERE Commerce_Product_Id__c = '${escaped}' ORDER BY Name`);
    expect(found.records.map((r) => [r.Name, r.Commerce_Dimension_Key__c])).toEqual([['Seats v2', '"seats"'], ['Storage', 'gb']]);
    const [ambiguous] = await conn.sobject('Product2').upsert([{ Name: 'Which one', Commerce_Product_Id__c: HOSTILE_PRODUCT }], 'Commerce_Product_Id__c', { allOrNone: false });
    expect(errorsOf(ambiguous)).toEqual([expect.objectContaining({ statusCode: 'DUPLICATE_EXTERNAL_ID' })]);

    // An entry is found through its product's key, as a connector reads its prices.
    const standard = await standardPricebookId(conn);
    await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: idOf(made), UnitPrice: 12.5, IsActive: true });
    const prices = await conn.query<{ UnitPrice: number; Product2: { Commerce_Price_Key__c: string } }>(
      `SELECT UnitPrice, Product2.Commerce_Price_Key__c FROM PricebookEntry WHERE Product2.Commerce_Product_Id__c = '${escaped}' AND Pricebook2.IsStandard = true`,
    );
    expect(prices.records).toEqual([expect.objectContaining({ UnitPrice: 12.5, Product2: expect.objectContaining({ Commerce_Price_Key__c: key }) })]);
  });

  it("adds products to an Opportunity: its price book set by the first, list and total prices derived, Amount the line items' sum (an update of it ignored)", async () => {
    const { product, entry, book, opportunity } = await catalogue(conn);
    const second = idOf(await conn.sobject('Product2').create({ Name: 'Harbor Containers: storage', ProductCode: 'HC-GB', IsActive: true }));
    const standard = await standardPricebookId(conn);
    await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: second, UnitPrice: 2, IsActive: true });
    const secondEntry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: second, UnitPrice: 1.5, IsActive: true }));

    const lines = await conn.sobject('OpportunityLineItem').create(
      [
        { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 3, UnitPrice: 75 },
        { OpportunityId: opportunity, PricebookEntryId: secondEntry, Quantity: 4, TotalPrice: 10 },
      ],
      { allOrNone: true },
    );
    expect(lines.map((r) => r.success)).toEqual([true, true]);
    const read = await conn.query<Record<string, any>>(`SELECT Name, Product2Id, ProductCode, Quantity, UnitPrice, TotalPrice, ListPrice, PricebookEntry.Product2.Name FROM OpportunityLineItem WHERE OpportunityId = '${opportunity}' ORDER BY ProductCode`);
    expect(read.records.map((r) => [r.Name, r.Product2Id, r.ProductCode, r.Quantity, r.UnitPrice, r.TotalPrice, r.ListPrice])).toEqual([
      ['Acme offer Harbor Containers: CPU hours', product, 'HC-CPU', 3, 75, 225, 80],
      ['Acme offer Harbor Containers: storage', second, 'HC-GB', 4, 2.5, 10, 1.5],
    ]);
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Pricebook2Id: book, Amount: 235 });
    // Two relationships deep, as a connector reads which commerce dimension each line names.
    const byKey = await conn.query<Record<string, any>>(
      `SELECT Quantity, PricebookEntry.Product2.Commerce_Price_Key__c FROM OpportunityLineItem WHERE OpportunityId = '${opportunity}' AND PricebookEntry.Product2.Commerce_Product_Id__c = 'prod-000001'`,
    );
    expect(byKey.records.map((r) => [r.Quantity, r.PricebookEntry.Product2.Commerce_Price_Key__c])).toEqual([[3, 'prod-000001|cpu_hours']]);

    // Amount is read-only while there are products: an update of it is ignored, not refused.
    const [ignored] = await conn.sobject('Opportunity').update([{ Id: opportunity, Amount: 1, Description: 'seller note' }], { allOrNone: false });
    expect(ignored).toMatchObject({ success: true });
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 235, Description: 'seller note' });

    // A new quantity keeps the sales price; a new total sets it; both at once is refused.
    await conn.sobject('OpportunityLineItem').update({ Id: idOf(lines[0]), Quantity: 4 });
    await conn.sobject('OpportunityLineItem').update({ Id: idOf(lines[1]), TotalPrice: 20 });
    expect(await conn.sobject('OpportunityLineItem').retrieve(idOf(lines[0]))).toMatchObject({ UnitPrice: 75, TotalPrice: 300 });
    expect(await conn.sobject('OpportunityLineItem').retrieve(idOf(lines[1]))).toMatchObject({ UnitPrice: 5, TotalPrice: 20 });
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 320 });
    const [both] = await conn.sobject('OpportunityLineItem').update([{ Id: idOf(lines[0]), UnitPrice: 1, TotalPrice: 2 }], { allOrNone: false });
    expect(errorsOf(both)).toEqual([{ statusCode: 'INVALID_FIELD', message: "Cannot change both 'UnitPrice' and 'TotalPrice' in update call", fields: ['UnitPrice'] }]);

    // Its price book cannot change while it has products; deleting them brings the Amount down.
    const other = idOf(await conn.sobject('Pricebook2').create({ Name: 'Other', IsActive: true }));
    const [moved] = await conn.sobject('Opportunity').update([{ Id: opportunity, Pricebook2Id: other }], { allOrNone: false });
    expect(errorsOf(moved)).toEqual([expect.objectContaining({ statusCode: 'FIELD_INTEGRITY_EXCEPTION', fields: ['Pricebook2Id'] })]);
    await conn.sobject('OpportunityLineItem').destroy(idOf(lines[1]));
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 300 });
    await conn.sobject('OpportunityLineItem').destroy(idOf(lines[0]));
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 0 });
  });

  it("refuses a line item without a price book entry, with an inactive one, one of another price book, both prices or neither, each with Salesforce's words", async () => {
    const { product, entry, opportunity, standardEntry } = await catalogue(conn);
    const inactiveBook = idOf(await conn.sobject('Pricebook2').create({ Name: 'Old prices', IsActive: true }));
    const inactiveEntry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: inactiveBook, Product2Id: product, UnitPrice: 60, IsActive: false }));
    const assigned = idOf(await conn.sobject('Opportunity').create({ Name: 'On the custom book', StageName: 'Prospecting', CloseDate: '2026-06-30' }));
    await conn.sobject('OpportunityLineItem').create({ OpportunityId: assigned, PricebookEntryId: entry, Quantity: 1, UnitPrice: 80 });

    const results = await conn.sobject('OpportunityLineItem').create(
      [
        { OpportunityId: opportunity, Quantity: 1, UnitPrice: 10 },
        { OpportunityId: opportunity, PricebookEntryId: inactiveEntry, Quantity: 1, UnitPrice: 10 },
        { OpportunityId: assigned, PricebookEntryId: standardEntry, Quantity: 1, UnitPrice: 10 },
        { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 2, UnitPrice: 10, TotalPrice: 20 },
        { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 2 },
        { OpportunityId: opportunity, PricebookEntryId: entry, UnitPrice: 10 },
        { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 0, TotalPrice: 10 },
      ],
      { allOrNone: false },
    );
    const integrity = (message: string, fields: string[]) => [{ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message, fields }];
    expect(results.map(errorsOf)).toEqual([
      integrity('field integrity exception: PricebookEntryId, unknown (versions 3.0 and higher must specify pricebook entry id; others must specify product id)', ['PricebookEntryId', 'unknown']),
      integrity('field integrity exception: PricebookEntryId (pricebook entry is inactive)', ['PricebookEntryId']),
      integrity('field integrity exception: PricebookEntryId (pricebook entry is in a different pricebook than the one assigned to the opportunity)', ['PricebookEntryId']),
      integrity('field integrity exception: only one of unit price or total price may be specified', ['TotalPrice']),
      [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [UnitPrice]', fields: ['UnitPrice'] }],
      [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Quantity]', fields: ['Quantity'] }],
      integrity('field integrity exception: Quantity (quantity must be nonzero)', ['Quantity']),
    ]);
    // Nothing of the refused saves landed: no line items, no price book on the Opportunity, its Amount as it was.
    expect((await conn.query(`SELECT Id FROM OpportunityLineItem WHERE OpportunityId = '${opportunity}'`)).totalSize).toBe(0);
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Pricebook2Id: null, Amount: 5000 });

    // Two line items of one call naming two price books: the first sets the Opportunity's, the second is refused.
    const [first, second] = await conn.sobject('OpportunityLineItem').create(
      [
        { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 1, UnitPrice: 80 },
        { OpportunityId: opportunity, PricebookEntryId: standardEntry, Quantity: 1, UnitPrice: 100 },
      ],
      { allOrNone: false },
    );
    expect(first).toMatchObject({ success: true });
    expect(errorsOf(second)).toEqual(integrity('field integrity exception: PricebookEntryId (pricebook entry is in a different pricebook than the one assigned to the opportunity)', ['PricebookEntryId']));
    const [noOpportunity] = await conn.sobject('OpportunityLineItem').create([{ OpportunityId: '006000000000001', PricebookEntryId: entry, Quantity: 1, UnitPrice: 1 }], { allOrNone: false });
    expect(errorsOf(noOpportunity)).toEqual([expect.objectContaining({ statusCode: 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY' })]);
  });

  it('takes line items through Bulk API 2.0 with the same rules, and the Amount rolls up', async () => {
    const { entry, standardEntry, opportunity } = await catalogue(conn);
    conn.bulk2.pollInterval = 25;
    const results = await conn.bulk2.loadAndWaitForResults({
      object: 'OpportunityLineItem',
      operation: 'insert',
      // CSV: an empty cell leaves a field out, so a row names its unit price or its total.
      input: [
        'OpportunityId,PricebookEntryId,Quantity,UnitPrice,TotalPrice',
        `${opportunity},${entry},2,80,`,
        `${opportunity},${entry},1,,40`,
        `${opportunity},${standardEntry},1,100,`,
      ].join('\n'),
    });
    expect(results.successfulResults).toHaveLength(2);
    expect(results.failedResults.map((r) => r.sf__Error)).toEqual(['FIELD_INTEGRITY_EXCEPTION:field integrity exception: PricebookEntryId (pricebook entry is in a different pricebook than the one assigned to the opportunity):PricebookEntryId --']);
    expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 200 });
  });

  it("the change driver's addProducts (named only) adds products of a price book to an Opportunity that asks for a private offer", async () => {
    const { entry, opportunity } = await catalogue(conn);
    await conn.sobject('Opportunity').update({ Id: opportunity, Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-000001' });
    // Without kinds the mix is the sellers' of before: no products are ever added.
    await control(sandbox, 'POST', '/changes', { count: 30 });
    expect((await conn.query(`SELECT Id FROM OpportunityLineItem`)).totalSize).toBe(0);

    // Named, each Opportunity that asks for an offer (the mix above asked for more) gets products once.
    const requested = (await conn.query<{ Id: string }>('SELECT Id FROM Opportunity WHERE Private_Offer_Requested__c = true')).records.map((r) => r.Id);
    expect(requested).toContain(opportunity);
    const { changes } = await control(sandbox, 'POST', '/changes', { count: 50, kinds: ['addProducts'] });
    expect(changes.map((c: any) => c.id).sort()).toEqual([...requested].sort());
    for (const change of changes) expect(change).toMatchObject({ object: 'Opportunity', kind: 'addProducts', summary: 'products added: Harbor Containers: CPU hours' });
    for (const id of requested) {
      const lines = await conn.query<{ PricebookEntryId: string; TotalPrice: number }>(`SELECT PricebookEntryId, TotalPrice FROM OpportunityLineItem WHERE OpportunityId = '${id}'`);
      expect(lines.records.map((r) => r.PricebookEntryId)).toEqual([entry]);
      expect(await conn.sobject('Opportunity').retrieve(id)).toMatchObject({ Amount: lines.records[0]!.TotalPrice });
    }
  });

  it("the change driver's addProducts puts dimensions of one marketplace product on an Opportunity, never two products'", async () => {
    const { standard, book, opportunity, account } = await catalogue(conn);
    // The book's other entries: a second dimension of prod-000001 and two of another marketplace product.
    for (const [name, productId, key] of [['Harbor Containers: seats', 'prod-000001', 'seats'], ['Atlas Search: queries', 'prod-000002', 'queries'], ['Atlas Search: seats', 'prod-000002', 'seats']]) {
      const product = idOf(await conn.sobject('Product2').create({ Name: name, IsActive: true, Commerce_Product_Id__c: productId, Commerce_Dimension_Key__c: key, Commerce_Price_Key__c: `${productId}|${key}` }));
      await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 50, IsActive: true });
      await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: product, UnitPrice: 40, IsActive: true });
    }
    const asking = [opportunity];
    for (let i = 0; i < 24; i++) asking.push(idOf(await conn.sobject('Opportunity').create({ Name: `Offer ${i}`, StageName: 'Prospecting', CloseDate: '2026-06-30', AccountId: account })));
    for (const id of asking) await conn.sobject('Opportunity').update({ Id: id, Private_Offer_Requested__c: true });

    const { changes } = await control(sandbox, 'POST', '/changes', { count: 50, kinds: ['addProducts'] });
    expect(changes).toHaveLength(asking.length);
    const lines = await conn.query<any>('SELECT OpportunityId, PricebookEntry.Product2.Commerce_Product_Id__c, PricebookEntry.Product2.Commerce_Dimension_Key__c FROM OpportunityLineItem');
    const productsOf = Map.groupBy(lines.records, (line) => line.OpportunityId as string);
    expect([...productsOf.keys()].sort()).toEqual([...asking].sort());
    for (const [, own] of productsOf) expect(new Set(own.map((line) => line.PricebookEntry.Product2.Commerce_Product_Id__c)).size).toBe(1);
    // Both marketplace products and two-line offers were drawn (the seed's picks over 25 Opportunities).
    expect(new Set(lines.records.map((line) => line.PricebookEntry.Product2.Commerce_Product_Id__c))).toEqual(new Set(['prod-000001', 'prod-000002']));
    expect([...productsOf.values()].some((own) => own.length === 2)).toBe(true);
  });

  it("the change driver's approveOffer (named only) approves, once each, the drafts built from products, naming the approver", async () => {
    const { entry, opportunity, account } = await catalogue(conn);
    const noProducts = idOf(await conn.sobject('Opportunity').create({ Name: 'Typed product', StageName: 'Prospecting', CloseDate: '2026-06-30', AccountId: account, Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-000001', Commerce_Offer_Id__c: 'offer-typed' }));
    await conn.sobject('Opportunity').update({ Id: opportunity, Private_Offer_Requested__c: true });
    await conn.sobject('OpportunityLineItem').create({ OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 3, UnitPrice: 80 });
    // Without kinds the mix never approves; named, nothing waits while the draft is not made.
    await control(sandbox, 'POST', '/changes', { count: 30 });
    expect((await control(sandbox, 'POST', '/changes', { count: 5, kinds: ['approveOffer'] })).changes).toEqual([]);

    await conn.sobject('Opportunity').update({ Id: opportunity, Commerce_Offer_Id__c: "offer-'quoted'-日本" });
    const { changes } = await control(sandbox, 'POST', '/changes', { count: 5, kinds: ['approveOffer'] });
    expect(changes).toHaveLength(1);
    const approved = await conn.sobject('Opportunity').retrieve(opportunity);
    expect(approved).toMatchObject({ Offer_Approval_Status__c: 'Approved' });
    expect(['Zoë O\'Brien (Deal Desk)', 'Kenji Satō', 'Amara "Mara" Okafor', 'Łukasz Nowak', 'Inés García-Márquez']).toContain(approved.Offer_Approved_By__c);
    expect(changes[0]).toMatchObject({ object: 'Opportunity', id: opportunity, kind: 'approveOffer', summary: `private offer offer-'quoted'-日本 approved by ${approved.Offer_Approved_By__c}` });
    expect((await conn.sobject('Opportunity').retrieve(noProducts)).Offer_Approval_Status__c ?? null).toBeNull();
    expect((await control(sandbox, 'POST', '/changes', { count: 5, kinds: ['approveOffer'] })).changes).toEqual([]);
  });
});

describe('Salesforce sandbox: the catalogue in a multi-currency org', () => {
  let sandbox: SalesforceSandbox;
  let conn: Connection;
  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ now, multiCurrency: { corporate: 'USD', active: ['USD', 'EUR'] } });
    ({ conn } = await clientCredentialsConnection(sandbox));
  });
  afterAll(() => sandbox.stop());

  it("keeps one price per currency, needs the standard price in that currency, and takes only entries in the Opportunity's currency", async () => {
    const standard = await standardPricebookId(conn);
    const product = idOf(await conn.sobject('Product2').create({ Name: 'Seats', IsActive: true }));
    const book = idOf(await conn.sobject('Pricebook2').create({ Name: 'Commerce catalogue', IsActive: true }));
    await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 10, IsActive: true, CurrencyIsoCode: 'USD' });
    const usd = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: product, UnitPrice: 9, IsActive: true, CurrencyIsoCode: 'USD' }));
    const [eurEarly] = await conn.sobject('PricebookEntry').create([{ Pricebook2Id: book, Product2Id: product, UnitPrice: 8, IsActive: true, CurrencyIsoCode: 'EUR' }], { allOrNone: false });
    expect(errorsOf(eurEarly)).toEqual([expect.objectContaining({ statusCode: 'STANDARD_PRICE_NOT_DEFINED' })]);
    await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 9.5, IsActive: true, CurrencyIsoCode: 'EUR' });
    const eur = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: book, Product2Id: product, UnitPrice: 8, IsActive: true, CurrencyIsoCode: 'EUR' }));
    const [recurrency] = await conn.sobject('PricebookEntry').update([{ Id: eur, CurrencyIsoCode: 'USD' }], { allOrNone: false });
    expect(errorsOf(recurrency)).toEqual([expect.objectContaining({ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['CurrencyIsoCode'] })]);

    const opportunity = idOf(await conn.sobject('Opportunity').create({ Name: 'Euro deal', StageName: 'Prospecting', CloseDate: '2026-06-30', CurrencyIsoCode: 'EUR' }));
    const [wrong] = await conn.sobject('OpportunityLineItem').create([{ OpportunityId: opportunity, PricebookEntryId: usd, Quantity: 1, UnitPrice: 9 }], { allOrNone: false });
    expect(errorsOf(wrong)).toEqual([{ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message: 'field integrity exception: PricebookEntryId (pricebook entry currency code does not match opportunity currency code)', fields: ['PricebookEntryId'] }]);
    const line = idOf(await conn.sobject('OpportunityLineItem').create({ OpportunityId: opportunity, PricebookEntryId: eur, Quantity: 3, UnitPrice: 8 }));
    expect(await conn.sobject('OpportunityLineItem').retrieve(line)).toMatchObject({ CurrencyIsoCode: 'EUR', TotalPrice: 24 });
    const [toUsd] = await conn.sobject('Opportunity').update([{ Id: opportunity, CurrencyIsoCode: 'USD' }], { allOrNone: false });
    expect(errorsOf(toUsd)).toEqual([expect.objectContaining({ statusCode: 'FIELD_INTEGRITY_EXCEPTION', fields: ['CurrencyIsoCode'] })]);
    const lineFields = (await conn.sobject('OpportunityLineItem').describe()).fields.find((f) => f.name === 'CurrencyIsoCode');
    expect(lineFields).toMatchObject({ createable: false, updateable: false, label: 'Currency ISO Code' });
  });
});

describe('Salesforce sandbox: the catalogue across a restart', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sf-catalogue-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps products, entries, line items and the rolled-up Amount in the journal', async () => {
    const journalPath = path.join(dir, 'catalogue.jsonl');
    const first = await startSalesforceSandbox({ now, journalPath });
    let opportunity: string;
    let entry: string;
    try {
      const { conn } = await clientCredentialsConnection(first);
      ({ opportunity, entry } = await catalogue(conn));
      await conn.sobject('OpportunityLineItem').create({ OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 2, UnitPrice: 80 });
    } finally {
      await first.stop();
    }
    const second = await startSalesforceSandbox({ now, journalPath });
    try {
      const { conn } = await clientCredentialsConnection(second);
      expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 160 });
      expect((await conn.query('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).totalSize).toBe(1);
      const [again] = await conn.sobject('OpportunityLineItem').create([{ OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 1, UnitPrice: 40 }], { allOrNone: false });
      expect(again).toMatchObject({ success: true });
      expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 200 });
    } finally {
      await second.stop();
    }
  });
});

describe('Salesforce sandbox: catalogue refusals stay per record', () => {
  it('a refused line item in an all-or-none call rolls the others back and leaves the Amount', async () => {
    const sandbox = await startSalesforceSandbox({ now });
    try {
      const { conn } = await clientCredentialsConnection(sandbox);
      // The first record of a fresh org is a price book: it gets an id of its own, never the standard one's.
      const firstBook = idOf(await conn.sobject('Pricebook2').create({ Name: 'Made first', IsActive: false }));
      expect(firstBook).not.toBe(await standardPricebookId(conn));
      const { entry, opportunity } = await catalogue(conn);
      const results = await conn.sobject('OpportunityLineItem').create(
        [
          { OpportunityId: opportunity, PricebookEntryId: entry, Quantity: 1, UnitPrice: 80 },
          { OpportunityId: opportunity, Quantity: 1, UnitPrice: 80 },
        ],
        { allOrNone: true },
      );
      expect(results.map((r) => errorsOf(r)[0]?.statusCode)).toEqual(['ALL_OR_NONE_OPERATION_ROLLED_BACK', 'FIELD_INTEGRITY_EXCEPTION']);
      expect((await conn.query(`SELECT Id FROM OpportunityLineItem WHERE OpportunityId = '${opportunity}'`)).totalSize).toBe(0);
      expect(await conn.sobject('Opportunity').retrieve(opportunity)).toMatchObject({ Amount: 5000, Pricebook2Id: null });
    } finally {
      await sandbox.stop();
    }
  });
});
