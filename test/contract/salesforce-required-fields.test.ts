// A required custom field the mapping does not fill (issue #23 item 5): an admin adds Account.Region__c
// with `required: true` through the Tooling API; every Account create that leaves it out fails
// REQUIRED_FIELD_MISSING, so the mapping check names it before anything is written. Also: the connector's
// access check tells a field the integration user is not granted from one the org lacks (item 1).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { checkMappings, MappingConfigError } from '../../mappings/check.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const REQUIRED = 'Account.Region__c is required in this org and the mapping does not fill it: give it a default in Salesforce, make it optional, or map a value to it (overrides)';

describe('Salesforce: required fields and field access the mapping needs', () => {
  let sandbox: SalesforceSandbox;
  const connector = () => createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
  const tooling = async (FullName: string, Metadata: Record<string, unknown>) => (await clientCredentialsConnection(sandbox)).conn.tooling.create('CustomField', { FullName, Metadata } as never);

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('names a required field the buyer mapping leaves empty; with a constant for it the mapping fits', async () => {
    await tooling('Account.Region__c', { label: 'Region', type: 'Text', length: 20, required: true });
    const failure = await checkMappings(connector(), { buyer: SALESFORCE_MAPPINGS.buyer }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MappingConfigError);
    expect((failure as MappingConfigError).problems).toEqual([REQUIRED]);

    await expect(checkMappings(connector(), { buyer: SALESFORCE_MAPPINGS.buyer }, { buyer: { constants: { Region__c: 'EU' } } })).resolves.toBeUndefined();
  });

  it("checkAccess says a new field exists but is not granted, and one the org lacks does not exist", async () => {
    // A field the sync does not use, made and not granted, is none of its business.
    await tooling('Account.Unrelated__c', { label: 'Unrelated', type: 'Text', length: 20 });
    expect(await connector().checkAccess!(['Account'])).toEqual([]);
    // An org without the project's metadata where an admin made one of its fields and granted nothing.
    const bare = await startSalesforceSandbox({ customMetadata: 'missing' });
    try {
      const { conn } = await clientCredentialsConnection(bare);
      await conn.tooling.create('CustomField', { FullName: 'Account.Commerce_Buyer_Id__c', Metadata: { label: 'Commerce Buyer Id', type: 'Text', length: 64, externalId: true, unique: true } } as never);
      const problems = await createSalesforceConnector({ loginUrl: bare.loginUrl }, { clientId: bare.clientId, clientSecret: bare.clientSecret }).checkAccess!(['Account']);
      expect(problems).toContainEqual({ object: 'Account', field: 'Commerce_Buyer_Id__c', kind: 'not-granted', message: 'Account.Commerce_Buyer_Id__c exists but the integration user is not granted it (field-level security)' });
      expect(problems).toContainEqual({ object: 'Account', field: 'Marketplace__c', kind: 'missing', message: 'Account.Marketplace__c does not exist' });
    } finally {
      await bare.stop();
    }
  });
});
