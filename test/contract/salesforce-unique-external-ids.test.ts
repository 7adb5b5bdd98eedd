// An external id field the sync upserts by must be unique in the org, not only an external id: the
// connector's describe carries Salesforce's `unique`, and the mapping check names an external id that
// is not unique before anything is written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectSchema } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { checkMappings, MappingConfigError } from '../../mappings/check.ts';
import { validateMapping } from '../../mappings/overrides.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

const NOT_UNIQUE = 'Commerce_Buyer_Id__c on Account is an external id but not unique: two records could share one commerce id; mark it Unique in Setup';

describe('Salesforce connector: external id fields must be unique', () => {
  let sandbox: SalesforceSandbox;
  const connector = () => createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it("describes each field's uniqueness as Salesforce reports it", async () => {
    const account = await connector().describe('Account');
    expect(account.fields.get('Commerce_Buyer_Id__c')).toMatchObject({ externalId: true, unique: true });
    expect(account.fields.get('Name')).toMatchObject({ externalId: false, unique: false });
    expect(account.fields.get('Marketplace_Account_Id__c')).toMatchObject({ externalId: false, unique: false });
  });

  it('names a mapping whose external id field is not unique, before any write', async () => {
    await control(sandbox, 'POST', '/fields/Account/Commerce_Buyer_Id__c', { unique: false });
    const sf = connector();
    const account = await sf.describe('Account');
    expect(account.fields.get('Commerce_Buyer_Id__c')).toMatchObject({ externalId: true, unique: false });
    expect(validateMapping(SALESFORCE_MAPPINGS.buyer, undefined, account)).toEqual([NOT_UNIQUE]);

    await control(sandbox, 'POST', '/calls/reset');
    const failure = await checkMappings(sf, SALESFORCE_MAPPINGS).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MappingConfigError);
    expect((failure as MappingConfigError).problems).toEqual([NOT_UNIQUE]);
    expect((failure as Error).message).toContain(NOT_UNIQUE);
    expect(Object.keys(await callCounts(sandbox)).filter((kind) => /upsert|create|update|bulk/.test(kind))).toEqual([]);

    // The other mappings still fit: their external ids are unique.
    await expect(checkMappings(sf, { contact: SALESFORCE_MAPPINGS.contact, offer: SALESFORCE_MAPPINGS.offer })).resolves.toBeUndefined();
  });

  it('says "not an external id" rather than "not unique" for a field that is neither, and trusts a CRM that does not report uniqueness', () => {
    const schema = (fields: { name: string; externalId: boolean; unique?: boolean }[]): ObjectSchema => ({
      name: 'Account',
      fields: new Map(fields.map((f) => [f.name, { type: 'string', required: false, createable: true, updateable: true, ...f }])),
    });
    const others = Object.keys(SALESFORCE_MAPPINGS.buyer.describe).map((name) => ({ name, externalId: false, unique: false }));
    expect(validateMapping(SALESFORCE_MAPPINGS.buyer, undefined, schema([...others, { name: 'Commerce_Buyer_Id__c', externalId: false, unique: false }]))).toEqual([
      'Account.Commerce_Buyer_Id__c is not an external id field',
    ]);
    expect(validateMapping(SALESFORCE_MAPPINGS.buyer, undefined, schema([...others, { name: 'Commerce_Buyer_Id__c', externalId: true }]))).toEqual([]);
    expect(validateMapping(SALESFORCE_MAPPINGS.buyer, undefined, schema([...others, { name: 'Commerce_Buyer_Id__c', externalId: true, unique: false }]))).toEqual([NOT_UNIQUE]);
  });
});
