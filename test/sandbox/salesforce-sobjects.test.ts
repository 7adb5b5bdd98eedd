// Salesforce sandbox: sObject REST and sObject Collections as jsforce 3 calls them — upserts by
// external id, validation with Salesforce's codes and texts, parents by external id, describe, retrieve.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SALESFORCE_SANDBOX_SCHEMA, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
let clockMs = Date.parse('2026-03-01T09:00:00.250Z');

const accounts = (count: number, prefix = 'b') =>
  Array.from({ length: count }, (_, i) => ({ Name: `Buyer ${i}`, Commerce_Buyer_Id__c: `${prefix}-${i}`, Marketplace__c: 'Marketplace A' }));
const dump = (object: string): Promise<Record<string, any>[]> => control(sandbox, 'GET', `/records/${object}`);
const errorOf = async (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ now: () => new Date(clockMs) });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  ({ conn } = await clientCredentialsConnection(sandbox));
  await control(sandbox, 'POST', '/calls/reset');
});

describe('Salesforce sandbox: upsert through sObject Collections', () => {
  it('upserts one record in one composite call: created, then updated with the same id', async () => {
    const [first] = await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c', { allOrNone: false });
    expect(first).toEqual({ id: expect.stringMatching(/^001\w{15}$/), success: true, errors: [], created: true });
    const [stored] = await dump('Account');
    expect(stored).toMatchObject({ Id: (first as any).id, Name: 'Acme', Commerce_Buyer_Id__c: 'b-1', IsDeleted: false, CreatedDate: '2026-03-01T09:00:00.000+0000' });
    expect(stored!.SystemModstamp).toBe(stored!.CreatedDate);

    clockMs += 5_000;
    const [second] = await conn.sobject('Account').upsert([{ Name: 'Acme Corp', Commerce_Buyer_Id__c: 'B-1' }], 'Commerce_Buyer_Id__c', { allOrNone: false });
    expect(second).toEqual({ id: (first as any).id, success: true, errors: [], created: false }); // external ids match case-insensitively
    const [updated] = await dump('Account');
    expect(updated).toMatchObject({ Name: 'Acme Corp', Commerce_Buyer_Id__c: 'b-1', CreatedDate: '2026-03-01T09:00:00.000+0000', SystemModstamp: '2026-03-01T09:00:05.000+0000' });
    expect(await callCounts(sandbox)).toEqual({ 'composite-upsert': 2, total: 2 });
  });

  it('upserts 200 records in exactly one call, one result per record in input order', async () => {
    const input = accounts(200);
    input[7]!.Name = ''; // Salesforce stores '' as null: a required field left out
    const results = await conn.sobject('Account').upsert(input, 'Commerce_Buyer_Id__c', { allOrNone: false });
    expect(results).toHaveLength(200);
    expect(results[7]).toEqual({ success: false, errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Name]', fields: ['Name'] }] });
    const stored = new Map((await dump('Account')).map((a) => [a.Id, a.Commerce_Buyer_Id__c]));
    results.forEach((result, i) => {
      if (i !== 7) expect(stored.get((result as any).id)).toBe(`b-${i}`);
    });
    expect(stored.size).toBe(199);
    expect(await callCounts(sandbox)).toEqual({ 'composite-upsert': 1, total: 1 });
  });

  it('refuses more than 200 records with EXCEEDED_ID_LIMIT; jsforce splits them only with allowRecursive', async () => {
    const error = await errorOf(conn.sobject('Account').upsert(accounts(201), 'Commerce_Buyer_Id__c'));
    expect(error).toMatchObject({ errorCode: 'EXCEEDED_ID_LIMIT', message: 'record limit reached. cannot submit more than 200 records into this call' });
    expect(await dump('Account')).toHaveLength(0);
    const results = await conn.sobject('Account').upsert(accounts(450), 'Commerce_Buyer_Id__c', { allowRecursive: true } as never);
    expect(results.every((r) => r.success)).toBe(true);
    expect(await callCounts(sandbox)).toMatchObject({ 'composite-upsert': 4 });
  });

  it('with allOrNone saves nothing when one record fails; the others say ALL_OR_NONE_OPERATION_ROLLED_BACK', async () => {
    await conn.sobject('Account').upsert([{ Name: 'Existing', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    const results = await conn.sobject('Account').upsert(
      [
        { Name: 'Changed', Commerce_Buyer_Id__c: 'b-1' },
        { Name: 'x'.repeat(256), Commerce_Buyer_Id__c: 'b-2' },
        { Name: 'New', Commerce_Buyer_Id__c: 'b-3' },
      ],
      'Commerce_Buyer_Id__c',
      { allOrNone: true },
    );
    const rolledBack = { statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK', message: 'Record rolled back because not all records were valid and the request was using AllOrNone header', fields: [] };
    expect(results[0]).toMatchObject({ success: false, errors: [rolledBack] });
    expect(results[1]).toEqual({ success: false, errors: [{ statusCode: 'STRING_TOO_LONG', message: `Account Name: data value too large: ${'x'.repeat(256)} (max length=255)`, fields: ['Name'] }] });
    expect(results[2]).toEqual({ success: false, errors: [rolledBack] });
    expect((await dump('Account')).map((a) => a.Name)).toEqual(['Existing']);
  });

  it('rejects bad records one by one with Salesforce codes and texts', async () => {
    const results = await conn.sobject('Opportunity').upsert(
      [
        { Commerce_Offer_Id__c: 'o-1', Name: 'N'.repeat(121), StageName: 'Prospecting', CloseDate: '2026-06-30' },
        { Commerce_Offer_Id__c: 'o-2', Name: 'Deal', StageName: 'Foo', CloseDate: '2026-06-30' },
        { Commerce_Offer_Id__c: 'o-3', Name: 'Deal' },
        { Commerce_Offer_Id__c: 'o-4', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-06-30', Amount: 1e17 },
        { Commerce_Offer_Id__c: 'o-5', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-06-30', Amount: 1234.567, Offer_Expiration__c: '2026-07-01T10:20:30.999+02:00' },
        { Commerce_Offer_Id__c: 'o-6', Name: 'Twice', StageName: 'Closed Won', CloseDate: '2026-06-30' },
        { Commerce_Offer_Id__c: 'O-6', Name: 'Twice', StageName: 'Closed Won', CloseDate: '2026-06-30' },
      ],
      'Commerce_Offer_Id__c',
      { allOrNone: false },
    );
    expect(results.map((r) => (r.success ? 'ok' : r.errors[0]))).toEqual([
      { statusCode: 'STRING_TOO_LONG', message: `Name: data value too large: ${'N'.repeat(121)} (max length=120)`, fields: ['Name'] },
      { statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: 'Stage: bad value for restricted picklist field: Foo', fields: ['StageName'] },
      { statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [StageName, CloseDate]', fields: ['StageName', 'CloseDate'] },
      { statusCode: 'NUMBER_OUTSIDE_VALID_RANGE', message: 'Amount: value outside of valid range on numeric field: 100000000000000000', fields: ['Amount'] },
      'ok',
      { statusCode: 'DUPLICATE_VALUE', message: 'Duplicate external id specified: o-6', fields: [] },
      { statusCode: 'DUPLICATE_VALUE', message: 'Duplicate external id specified: O-6', fields: [] },
    ]);
    const [stored] = await dump('Opportunity');
    // Currency rounds to the field's scale; date-times keep whole seconds, in UTC.
    expect(stored).toMatchObject({ Commerce_Offer_Id__c: 'o-5', Amount: 1234.57, Offer_Expiration__c: '2026-07-01T08:20:30.000+0000', CloseDate: '2026-06-30' });
  });

  it('refuses the whole call for an unknown field or a value of the wrong type', async () => {
    const unknown = await errorOf(conn.sobject('Opportunity').upsert([{ Commerce_Offer_Id__c: 'o-1', Name: 'Deal', Foo__c: 'x' }], 'Commerce_Offer_Id__c'));
    expect(unknown).toMatchObject({ errorCode: 'INVALID_FIELD', message: "No such column 'Foo__c' on sobject of type Opportunity" });
    const badDate = await errorOf(conn.sobject('Opportunity').upsert([{ Commerce_Offer_Id__c: 'o-1', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-02-30' }], 'Commerce_Offer_Id__c'));
    expect(badDate.errorCode).toBe('JSON_PARSER_ERROR');
    expect(badDate.message).toMatch(/^Cannot deserialize instance of date from VALUE_STRING value 2026-02-30 or request may be missing a required field at \[line:1, column:\d+\]$/);
    const badAmount = await errorOf(conn.sobject('Opportunity').upsert([{ Commerce_Offer_Id__c: 'o-1', Name: 'Deal', Amount: 'lots' }], 'Commerce_Offer_Id__c'));
    expect(badAmount).toMatchObject({ errorCode: 'JSON_PARSER_ERROR', message: expect.stringContaining('instance of currency from VALUE_STRING value lots') });
    const notKey = await errorOf(conn.sobject('Account').upsert([{ Name: 'Acme', Marketplace__c: 'x' }], 'Marketplace__c'));
    expect(notKey).toMatchObject({ errorCode: 'NOT_FOUND', message: 'Provided external ID field does not exist or is not accessible: Marketplace__c' });
    const readOnly = await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1', CreatedDate: '2020-01-01T00:00:00Z' }], 'Commerce_Buyer_Id__c');
    expect(readOnly[0]).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['CreatedDate'] }] });
    expect(await dump('Opportunity')).toHaveLength(0);
  });

  it('resolves parents by external id (standard and custom relationships) and names a missing parent', async () => {
    await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    await conn.sobject('Opportunity').upsert(
      [{ Commerce_Offer_Id__c: 'o-1', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-06-30', Account: { Commerce_Buyer_Id__c: 'b-1' } }],
      'Commerce_Offer_Id__c',
    );
    const [account] = await dump('Account');
    const [opportunity] = await dump('Opportunity');
    expect(opportunity!.AccountId).toBe(account!.Id);

    const results = await conn.sobject('Marketplace_Entitlement__c').upsert(
      [
        { Commerce_Entitlement_Id__c: 'e-1', Name: 'Ent 1', Account__r: { Commerce_Buyer_Id__c: 'b-1' }, Opportunity__r: { Commerce_Offer_Id__c: 'o-1' }, Commit_Amount__c: 1000 },
        { Commerce_Entitlement_Id__c: 'e-2', Name: 'Ent 2', Account__r: { Commerce_Buyer_Id__c: 'b-404' } },
      ],
      'Commerce_Entitlement_Id__c',
      { allOrNone: false },
    );
    expect(results[0]).toMatchObject({ success: true, created: true });
    expect(results[1]).toEqual({
      success: false,
      errors: [{ statusCode: 'INVALID_FIELD', message: 'Foreign key external ID: b-404 not found for field Commerce_Buyer_Id__c in entity Account', fields: [] }],
    });
    const entitlements = await dump('Marketplace_Entitlement__c');
    expect(entitlements).toHaveLength(1);
    expect(entitlements[0]).toMatchObject({ Account__c: account!.Id, Opportunity__c: opportunity!.Id, Commit_Amount__c: 1000 });

    const wrongName = await errorOf(conn.sobject('Contact').upsert([{ Commerce_Contact_Id__c: 'c-1', LastName: 'Doe', Account__r: { Commerce_Buyer_Id__c: 'b-1' } }], 'Commerce_Contact_Id__c'));
    expect(wrongName).toMatchObject({ errorCode: 'INVALID_FIELD', message: "No such column 'Account__r' on sobject of type Contact" });
    const directId = await conn.sobject('Contact').upsert([{ Commerce_Contact_Id__c: 'c-1', LastName: 'Doe', AccountId: (opportunity!.Id as string) }], 'Commerce_Contact_Id__c');
    expect(directId[0]).toMatchObject({ success: false, errors: [{ statusCode: 'MALFORMED_ID', fields: ['AccountId'] }] });
  });

  it('rejects a second record with a unique value another record already holds', async () => {
    const [created] = await conn.sobject('Account').create([{ Name: 'One', Commerce_Buyer_Id__c: 'b-1' }, { Name: 'Two', Commerce_Buyer_Id__c: 'b-1' }], { allOrNone: false });
    expect(created).toMatchObject({ success: true });
    const again = await conn.sobject('Account').create([{ Name: 'Three', Commerce_Buyer_Id__c: 'B-1' }]);
    expect(again[0]).toEqual({
      success: false,
      errors: [{ statusCode: 'DUPLICATE_VALUE', message: `duplicate value found: Commerce_Buyer_Id__c duplicates value on record with id: ${(created as any).id}`, fields: [] }],
    });
  });
});

describe('Salesforce sandbox: single-record REST and collections', () => {
  it('upserts one record through PATCH /sobjects/{T}/{field}/{value}: 201 created, then 200 created:false', async () => {
    const created = await conn.sobject('Account').upsert({ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }, 'Commerce_Buyer_Id__c');
    expect(created).toEqual({ id: expect.stringMatching(/^001/), success: true, errors: [], created: true });
    const updated = await conn.sobject('Account').upsert({ Name: 'Acme 2', Commerce_Buyer_Id__c: 'b-1' }, 'Commerce_Buyer_Id__c');
    expect(updated).toEqual({ id: (created as any).id, success: true, errors: [], created: false });
    const failed = await errorOf(conn.sobject('Account').upsert({ Name: '', Commerce_Buyer_Id__c: 'b-2' }, 'Commerce_Buyer_Id__c'));
    expect(failed).toMatchObject({ errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Name]' });
    expect(await callCounts(sandbox)).toEqual({ 'sobject-upsert': 3, total: 3 });
  });

  it('creates, updates, retrieves and deletes single records', async () => {
    const created = await conn.sobject('Contact').create({ LastName: 'Doe', Email: 'jane@example.com', Commerce_Contact_Id__c: 'c-1' });
    expect(created).toEqual({ id: expect.stringMatching(/^003/), success: true, errors: [] });
    const id = (created as any).id as string;
    await expect(conn.sobject('Contact').update({ Id: id, FirstName: 'Jane' })).resolves.toMatchObject({ id, success: true });
    const badEmail = await errorOf(conn.sobject('Contact').update({ Id: id, Email: 'not-an-email' }));
    expect(badEmail).toMatchObject({ errorCode: 'INVALID_EMAIL_ADDRESS', message: 'Email: invalid email address: not-an-email' });

    const full = await conn.sobject('Contact').retrieve(id);
    expect(full).toMatchObject({ attributes: { type: 'Contact', url: `/services/data/v62.0/sobjects/Contact/${id}` }, Id: id, FirstName: 'Jane', LastName: 'Doe', AccountId: null });
    const some = await conn.sobject('Contact').retrieve(id.slice(0, 15), { fields: ['LastName'] });
    expect(some).toEqual({ attributes: expect.any(Object), LastName: 'Doe', Id: id });
    const missing = await errorOf(conn.sobject('Contact').retrieve('003Sb0000000zzzAAA'));
    expect(missing).toMatchObject({ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' });

    await conn.sobject('Contact').destroy(id);
    expect(await dump('Contact')).toHaveLength(0);
    expect(await control(sandbox, 'GET', '/records/Contact?includeDeleted=true')).toEqual([expect.objectContaining({ Id: id, IsDeleted: true })]);
  });

  it('creates and updates arrays through /composite/sobjects and retrieves many at once', async () => {
    const created = await conn.sobject('Account').create([{ Name: 'One' }, { Name: 'Two' }, { Name: '' }], { allOrNone: false });
    expect(created.map((r) => r.success)).toEqual([true, true, false]);
    const ids = created.slice(0, 2).map((r) => (r as any).id as string);
    const updated = await conn.sobject('Account').update([{ Id: ids[0]!, Website: 'https://one.example' }, { Id: '001Sb00000000zzAAA', Name: 'Ghost' }], { allOrNone: false });
    expect(updated[0]).toEqual({ id: ids[0], success: true, errors: [] });
    expect(updated[1]).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY' }] });

    await control(sandbox, 'POST', '/calls/reset');
    const retrieved = await conn.sobject('Account').retrieve([ids[0]!, '001Sb00000000zzAAA', ids[1]!]);
    expect(retrieved[0]).toMatchObject({ Id: ids[0], Name: 'One', Website: 'https://one.example' });
    expect(retrieved[1]).toBeNull();
    expect(retrieved[2]).toMatchObject({ Id: ids[1], Name: 'Two' });
    // Without a field list jsforce first asks describe for every field name.
    expect(await callCounts(sandbox)).toEqual({ describe: 1, 'composite-retrieve': 1, total: 2 });

    const destroyed = await conn.sobject('Account').destroy([ids[0]!, '001Sb00000000zzAAA']);
    expect(destroyed[0]).toEqual({ id: ids[0], success: true, errors: [] });
    expect(destroyed[1]).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY' }] });
    expect((await dump('Account')).map((a) => a.Name)).toEqual(['Two']);
  });
});

describe('Salesforce sandbox: describe', () => {
  it('describes Opportunity with the fields, picklist and keys the connector checks mappings against', async () => {
    const described = await conn.sobject('Opportunity').describe();
    expect(described).toMatchObject({ name: 'Opportunity', keyPrefix: '006', createable: true, updateable: true, queryable: true });
    const field = (name: string) => described.fields.find((f) => f.name === name)!;
    expect(field('StageName')).toMatchObject({ type: 'picklist', restrictedPicklist: true, nillable: false, createable: true, label: 'Stage' });
    expect(field('StageName').picklistValues!.map((p) => p.value)).toEqual([
      'Prospecting', 'Qualification', 'Needs Analysis', 'Value Proposition', 'Id. Decision Makers',
      'Perception Analysis', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost',
    ]);
    expect(field('StageName').picklistValues![8]).toEqual({ active: true, defaultValue: false, label: 'Closed Won', validFor: null, value: 'Closed Won' });
    expect(field('Commerce_Offer_Id__c')).toMatchObject({ type: 'string', length: 64, externalId: true, unique: true, idLookup: true, nillable: true, custom: true });
    expect(field('AccountId')).toMatchObject({ type: 'reference', referenceTo: ['Account'], relationshipName: 'Account' });
    expect(field('Name')).toMatchObject({ type: 'string', length: 120, nillable: false });
    expect(field('SystemModstamp')).toMatchObject({ type: 'datetime', createable: false, updateable: false });
    expect(field('Description')).toMatchObject({ type: 'textarea', length: 32000, filterable: false });
    expect(described.fields.map((f) => f.name)).toEqual(SALESFORCE_SANDBOX_SCHEMA.Opportunity!.fields.map((f) => f.name));

    const entitlement = await conn.sobject('Marketplace_Entitlement__c').describe();
    expect(entitlement.fields.find((f) => f.name === 'Account__c')).toMatchObject({ referenceTo: ['Account'], relationshipName: 'Account__r' });
    const account = await conn.sobject('Account').describe();
    // Tasks: the activities whose WhatId names the account (issue #27's timeline).
    expect(account.childRelationships.map((c) => c.relationshipName)).toEqual(['Contacts', 'Opportunities', 'Marketplace_Entitlements__r', 'Tasks']);
  });

  it('lists the objects in describeGlobal and answers NOT_FOUND for others', async () => {
    const global = await conn.describeGlobal();
    expect(global.sobjects.map((s) => s.name)).toEqual([
      'Account', 'Contact', 'Opportunity', 'Marketplace_Entitlement__c', 'Cosell_Referral__c', 'Marketplace_Usage__c', 'Task', 'OpportunityContactRole',
      // The standard objects behind permission sets (field-level security), and the integration user's User.
      'User', 'PermissionSet', 'ObjectPermissions', 'FieldPermissions', 'PermissionSetAssignment',
      // The product catalogue (issue #28).
      'Product2', 'Pricebook2', 'PricebookEntry', 'OpportunityLineItem',
    ]);
    await expect(conn.sobject('Lead').describe()).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
  });
});
