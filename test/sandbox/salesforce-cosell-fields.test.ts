// Salesforce sandbox: the Opportunity fields co-sell from the CRM reads and writes, seen through jsforce
// over HTTP. Expected flags are written down here from Salesforce's describe vocabulary (a checkbox is
// `boolean`, never nillable, defaulted on create; a long text area is `textarea` and not filterable),
// not read from the sandbox's schema.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
const START_MS = Date.parse('2026-05-04T08:00:00.000Z');
let clockMs = START_MS;
const now = () => new Date(clockMs);
const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const dump = (object: string): Promise<any[]> => control(sandbox, 'GET', `/records/${object}`);
const MARKETPLACES = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];
const deal = (extra: Record<string, unknown> = {}) => ({ Name: 'Deal', StageName: 'Prospecting', CloseDate: '2026-09-30', ...extra });

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ now });
  ({ conn } = await clientCredentialsConnection(sandbox));
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  clockMs = START_MS;
  await control(sandbox, 'POST', '/reset');
});

describe('Salesforce sandbox: Opportunity co-sell fields', () => {
  it('describes every co-sell field with its type, length and flags', async () => {
    const described = await conn.sobject('Opportunity').describe();
    const field = (name: string) => {
      const found = described.fields.find((f) => f.name === name);
      if (!found) throw new Error(`describe has no Opportunity.${name}`);
      return found;
    };
    const writable = { createable: true, updateable: true, custom: true };
    const checkbox = { ...writable, type: 'boolean', soapType: 'xsd:boolean', nillable: false, defaultValue: false, defaultedOnCreate: true, length: 0, externalId: false, unique: false };
    expect(field('Cosell_Share__c')).toMatchObject({ ...checkbox, label: 'Cosell Share', filterable: true });
    expect(field('Private_Offer_Requested__c')).toMatchObject({ ...checkbox, label: 'Private Offer Requested', filterable: true });
    expect(field('Cosell_Partner__c')).toMatchObject({ ...writable, type: 'picklist', length: 255, restrictedPicklist: false, nillable: true, defaultValue: null });
    expect(field('Cosell_Partner__c').picklistValues!.map((p) => p.value)).toEqual(MARKETPLACES);
    expect(field('Commerce_Referral_Id__c')).toMatchObject({ ...writable, type: 'string', length: 255, externalId: true, unique: true, idLookup: true, nillable: true, filterable: true });
    expect(field('Cosell_Status__c')).toMatchObject({ ...writable, type: 'string', length: 40, externalId: false, unique: false, nillable: true });
    expect(field('Cosell_Stage__c')).toMatchObject({ ...writable, type: 'string', length: 80, externalId: false, nillable: true });
    expect(field('Cosell_Errors__c')).toMatchObject({ ...writable, type: 'textarea', length: 32768, filterable: false, sortable: false, nillable: true });
    expect(field('Commerce_Product_Id__c')).toMatchObject({ ...writable, type: 'string', length: 255, externalId: false, unique: false, nillable: true });

    // The standard fields a co-sell mapping reads.
    expect(field('StageName').picklistValues!.map((p) => p.value)).toEqual([
      'Prospecting', 'Qualification', 'Needs Analysis', 'Value Proposition', 'Id. Decision Makers',
      'Perception Analysis', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost',
    ]);
    expect(field('Amount')).toMatchObject({ type: 'currency', precision: 18, scale: 2, createable: true });
    expect(field('CloseDate')).toMatchObject({ type: 'date', nillable: false, createable: true });
    expect(field('Description')).toMatchObject({ type: 'textarea', length: 32000 });
    expect(field('AccountId')).toMatchObject({ type: 'reference', referenceTo: ['Account'] });
    for (const system of ['SystemModstamp', 'LastModifiedDate']) expect(field(system)).toMatchObject({ type: 'datetime', createable: false, updateable: false });
    // A single-currency org: no CurrencyIsoCode, as in a real org without multi-currency.
    expect(described.fields.some((f) => f.name === 'CurrencyIsoCode')).toBe(false);
    expect(await errorOf(conn.sobject('Opportunity').create(deal({ CurrencyIsoCode: 'USD' })))).toMatchObject({ errorCode: 'INVALID_FIELD' });
  });

  it('round-trips the co-sell fields through create, retrieve, update and query', async () => {
    const account = await conn.sobject('Account').create({ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' });
    const errors = 'x'.repeat(32768);
    const created: any = await conn.sobject('Opportunity').create(
      deal({
        AccountId: (account as any).id,
        Amount: 1200.5,
        Description: 'Joint pursuit',
        Cosell_Share__c: true,
        Cosell_Partner__c: 'Marketplace B',
        Commerce_Referral_Id__c: 'ref-1',
        Cosell_Status__c: 'SUBMITTED',
        Cosell_Stage__c: 'Technical Validation',
        Cosell_Errors__c: errors,
        Private_Offer_Requested__c: true,
        Commerce_Product_Id__c: 'prod-000003',
      }),
    );
    expect(created).toMatchObject({ success: true });
    const fields = ['Cosell_Share__c', 'Cosell_Partner__c', 'Commerce_Referral_Id__c', 'Cosell_Status__c', 'Cosell_Stage__c', 'Cosell_Errors__c', 'Private_Offer_Requested__c', 'Commerce_Product_Id__c', 'Amount', 'AccountId'];
    const retrieved: any = await conn.sobject('Opportunity').retrieve(created.id, { fields });
    expect(retrieved).toMatchObject({
      Cosell_Share__c: true,
      Cosell_Partner__c: 'Marketplace B',
      Commerce_Referral_Id__c: 'ref-1',
      Cosell_Status__c: 'SUBMITTED',
      Cosell_Stage__c: 'Technical Validation',
      Private_Offer_Requested__c: true,
      Commerce_Product_Id__c: 'prod-000003',
      Amount: 1200.5,
      AccountId: (account as any).id,
    });
    expect(retrieved.Cosell_Errors__c).toHaveLength(32768);

    await conn.sobject('Opportunity').update({ Id: created.id, Cosell_Share__c: false, Cosell_Status__c: 'ACCEPTED', Cosell_Errors__c: null, Private_Offer_Requested__c: false });
    const shared = await conn.query<any>('SELECT Id FROM Opportunity WHERE Cosell_Share__c = true');
    expect(shared.totalSize).toBe(0);
    const [stored] = await dump('Opportunity');
    expect(stored).toMatchObject({ Cosell_Share__c: false, Cosell_Status__c: 'ACCEPTED', Cosell_Errors__c: null, Private_Offer_Requested__c: false, Commerce_Referral_Id__c: 'ref-1' });

    // The partner picklist is not restricted: a value outside its list is kept, as Salesforce keeps it.
    await conn.sobject('Opportunity').update({ Id: created.id, Cosell_Partner__c: 'Marketplace Z' });
    expect((await dump('Opportunity'))[0]).toMatchObject({ Cosell_Partner__c: 'Marketplace Z' });
  });

  it('stores false in a checkbox a create leaves out, and refuses null in one', async () => {
    const created: any = await conn.sobject('Opportunity').create(deal());
    const [stored] = await dump('Opportunity');
    expect(stored).toMatchObject({ Id: created.id, Cosell_Share__c: false, Private_Offer_Requested__c: false, Cosell_Partner__c: null, Commerce_Referral_Id__c: null });
    const byQuery = await conn.query<any>('SELECT Id FROM Opportunity WHERE Cosell_Share__c = false AND Private_Offer_Requested__c = false');
    expect(byQuery.records.map((r) => r.Id)).toEqual([created.id]);

    const [refused] = (await conn.sobject('Opportunity').update([{ Id: created.id, Cosell_Share__c: null }], { allOrNone: false })) as any[];
    expect(refused).toMatchObject({
      success: false,
      errors: [{ statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD', message: 'Cosell Share: value not of required type: ', fields: ['Cosell_Share__c'] }],
    });
    const [refusedCreate] = (await conn.sobject('Opportunity').create([deal({ Private_Offer_Requested__c: null })], { allOrNone: false })) as any[];
    expect(refusedCreate).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD', fields: ['Private_Offer_Requested__c'] }] });
    expect(await dump('Opportunity')).toHaveLength(1);
  });

  it('reads checkboxes from a Bulk API 2.0 CSV: true/false kept, an empty cell defaulted, #N/A refused', async () => {
    conn.bulk2.pollInterval = 25;
    const csv = [
      'Commerce_Referral_Id__c,Name,StageName,CloseDate,Cosell_Share__c,Private_Offer_Requested__c',
      'r-1,One,Prospecting,2026-09-30,true,false',
      'r-2,Two,Prospecting,2026-09-30,,',
      'r-3,Three,Prospecting,2026-09-30,#N/A,true',
    ].join('\n');
    const results = await conn.bulk2.loadAndWaitForResults({ object: 'Opportunity', operation: 'upsert', externalIdFieldName: 'Commerce_Referral_Id__c', input: csv });
    expect(results.successfulResults.map((r: any) => r.Commerce_Referral_Id__c)).toEqual(['r-1', 'r-2']);
    expect(results.failedResults).toHaveLength(1);
    expect(results.failedResults[0]!.sf__Error).toBe('INVALID_TYPE_ON_FIELD_IN_RECORD:Cosell Share: value not of required type: :Cosell_Share__c --');
    const stored = new Map((await dump('Opportunity')).map((o) => [o.Commerce_Referral_Id__c, o]));
    expect(stored.get('r-1')).toMatchObject({ Cosell_Share__c: true, Private_Offer_Requested__c: false });
    expect(stored.get('r-2')).toMatchObject({ Cosell_Share__c: false, Private_Offer_Requested__c: false });
    expect(stored.has('r-3')).toBe(false);
  });

  it('refuses text longer than a co-sell field holds, naming its label', async () => {
    const results = (await conn.sobject('Opportunity').create(
      [deal({ Cosell_Errors__c: 'e'.repeat(32769) }), deal({ Cosell_Status__c: 's'.repeat(41) }), deal({ Commerce_Product_Id__c: 'p'.repeat(256) })],
      { allOrNone: false },
    )) as any[];
    expect(results.map((r) => r.errors[0])).toEqual([
      { statusCode: 'STRING_TOO_LONG', message: `Cosell Errors: data value too large: ${'e'.repeat(32769)} (max length=32768)`, fields: ['Cosell_Errors__c'] },
      { statusCode: 'STRING_TOO_LONG', message: `Cosell Status: data value too large: ${'s'.repeat(41)} (max length=40)`, fields: ['Cosell_Status__c'] },
      { statusCode: 'STRING_TOO_LONG', message: `Commerce Product Id: data value too large: ${'p'.repeat(256)} (max length=255)`, fields: ['Commerce_Product_Id__c'] },
    ]);
  });

  it('upserts by Commerce_Referral_Id__c as an external id: created once, then matched (any casing)', async () => {
    const first = (await conn.sobject('Opportunity').upsert([deal({ Commerce_Referral_Id__c: 'REF-7', Cosell_Stage__c: 'Prospect' })], 'Commerce_Referral_Id__c', { allOrNone: false })) as any[];
    expect(first[0]).toMatchObject({ success: true, created: true });
    const again = (await conn.sobject('Opportunity').upsert([{ Commerce_Referral_Id__c: 'ref-7', Cosell_Stage__c: 'Qualified', Cosell_Status__c: 'SUBMITTED' }], 'Commerce_Referral_Id__c', { allOrNone: false })) as any[];
    expect(again[0]).toMatchObject({ success: true, created: false, id: first[0].id });
    const single: any = await conn.sobject('Opportunity').upsert({ Commerce_Referral_Id__c: 'REF-7', Cosell_Stage__c: 'Committed' }, 'Commerce_Referral_Id__c');
    expect(single).toMatchObject({ success: true, created: false, id: first[0].id });
    const stored = await dump('Opportunity');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ Commerce_Referral_Id__c: 'REF-7', Cosell_Stage__c: 'Committed', Cosell_Status__c: 'SUBMITTED' });
  });

  it('refuses a referral id already held by another Opportunity, on create and on update', async () => {
    const holder: any = await conn.sobject('Opportunity').create(deal({ Commerce_Referral_Id__c: 'ref-9' }));
    const other: any = await conn.sobject('Opportunity').create(deal({ Name: 'Other' }));
    const [created] = (await conn.sobject('Opportunity').create([deal({ Commerce_Referral_Id__c: 'REF-9' })], { allOrNone: false })) as any[];
    const duplicate = { statusCode: 'DUPLICATE_VALUE', message: `duplicate value found: Commerce_Referral_Id__c duplicates value on record with id: ${holder.id}` };
    expect(created).toMatchObject({ success: false, errors: [duplicate] });
    const [updated] = (await conn.sobject('Opportunity').update([{ Id: other.id, Commerce_Referral_Id__c: 'ref-9' }], { allOrNone: false })) as any[];
    expect(updated).toMatchObject({ success: false, id: other.id, errors: [duplicate] });
    // Two records of one call claiming one new value: the second is refused.
    const pair = (await conn.sobject('Opportunity').create([deal({ Commerce_Referral_Id__c: 'ref-10' }), deal({ Commerce_Referral_Id__c: 'ref-10' })], { allOrNone: false })) as any[];
    expect(pair.map((r) => r.success)).toEqual([true, false]);
    expect(pair[1].errors[0]).toMatchObject({ statusCode: 'DUPLICATE_VALUE' });
    expect((await dump('Opportunity')).map((o) => o.Commerce_Referral_Id__c).sort()).toEqual([null, 'ref-10', 'ref-9']);
  });

  it('moves SystemModstamp and LastModifiedDate on every update, the creation date staying', async () => {
    const created: any = await conn.sobject('Opportunity').create(deal());
    const createdAt = '2026-05-04T08:00:00.000+0000';
    clockMs = Date.parse('2026-05-04T08:05:07.250Z');
    await conn.sobject('Opportunity').update({ Id: created.id, StageName: 'Qualification', Cosell_Share__c: true });
    expect((await dump('Opportunity'))[0]).toMatchObject({ CreatedDate: createdAt, SystemModstamp: '2026-05-04T08:05:07.000+0000', LastModifiedDate: '2026-05-04T08:05:07.000+0000', StageName: 'Qualification' });
    clockMs += 60_000;
    await conn.sobject('Opportunity').update({ Id: created.id, Cosell_Share__c: true }); // changes nothing, still a save
    expect((await dump('Opportunity'))[0]).toMatchObject({ CreatedDate: createdAt, SystemModstamp: '2026-05-04T08:06:07.000+0000', LastModifiedDate: '2026-05-04T08:06:07.000+0000' });
    const changed = await conn.query<any>("SELECT Id FROM Opportunity WHERE SystemModstamp > 2026-05-04T08:06:00Z");
    expect(changed.records.map((r) => r.Id)).toEqual([created.id]);
  });
});
