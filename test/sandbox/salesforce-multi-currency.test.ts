// Salesforce sandbox: a multi-currency org (README "Multi-currency"), seen through jsforce over HTTP.
// Expected flags and texts are written down here from the wire doc ("Multi-currency orgs": a restricted
// picklist of the active currencies, defaulted on create with the user's currency, never null; an
// inactive code refused per record like any restricted picklist value), not read from the sandbox.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const deal = (extra: Record<string, unknown> = {}) => ({ Name: 'Deal', StageName: 'Prospecting', CloseDate: '2026-09-30', ...extra });

describe('Salesforce sandbox: a multi-currency org', () => {
  let sandbox: SalesforceSandbox;
  let conn: Connection;
  beforeAll(async () => {
    // The user's currency differs from the corporate one, so a default shows whose it is.
    sandbox = await startSalesforceSandbox({ multiCurrency: { corporate: 'USD', active: ['USD', 'EUR', 'GBP', 'JPY'], userCurrency: 'GBP' } });
    ({ conn } = await clientCredentialsConnection(sandbox));
  });
  afterAll(() => sandbox.stop());

  it('describes CurrencyIsoCode on the objects that hold amounts, as a restricted picklist of the active currencies', async () => {
    const currencyOf = async (object: string) => (await conn.sobject(object).describe()).fields.find((f) => f.name === 'CurrencyIsoCode');
    const flags = { type: 'picklist', length: 3, restrictedPicklist: true, nillable: false, defaultedOnCreate: true, createable: true, updateable: true, custom: false, filterable: true };
    expect(await currencyOf('Opportunity')).toMatchObject({ ...flags, label: 'Opportunity Currency' });
    expect(await currencyOf('Account')).toMatchObject({ ...flags, label: 'Account Currency' });
    expect(await currencyOf('Contact')).toMatchObject({ ...flags, label: 'Contact Currency' });
    expect(await currencyOf('Marketplace_Entitlement__c')).toMatchObject({ ...flags, label: 'Currency ISO Code' });
    expect(await currencyOf('Cosell_Referral__c')).toMatchObject({ ...flags, label: 'Currency ISO Code' });
    expect((await currencyOf('Opportunity'))!.picklistValues!.map((p) => p.value)).toEqual(['USD', 'EUR', 'GBP', 'JPY']);
    // No amounts on a contact role: no currency there.
    expect(await currencyOf('OpportunityContactRole')).toBeUndefined();
  });

  it("takes a record's currency as sent, the user's when left out, and refuses a currency the org has not activated, per record", async () => {
    const results = (await conn.sobject('Opportunity').create(
      [deal({ Name: 'In euros', Amount: 1000, CurrencyIsoCode: 'EUR' }), deal({ Name: 'Unsaid', Amount: 1000 }), deal({ Name: 'In francs', Amount: 1000, CurrencyIsoCode: 'CHF' })] as never[],
      { allOrNone: false },
    )) as unknown as { id?: string; success: boolean; errors: { statusCode: string; message: string; fields: string[] }[] }[];
    expect(results.map((result) => result.success)).toEqual([true, true, false]);
    expect(results[2]!.errors).toEqual([{ statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: 'Opportunity Currency: bad value for restricted picklist field: CHF', fields: ['CurrencyIsoCode'] }]);
    const rows = await conn.query<{ Name: string; Amount: number; CurrencyIsoCode: string }>(`SELECT Name, Amount, CurrencyIsoCode FROM Opportunity WHERE Id IN ('${results[0]!.id}', '${results[1]!.id}') ORDER BY Name`);
    // Amounts are kept as sent: they are in the record's currency.
    expect(rows.records.map(({ Name, Amount, CurrencyIsoCode }) => ({ Name, Amount, CurrencyIsoCode }))).toEqual([
      { Name: 'In euros', Amount: 1000, CurrencyIsoCode: 'EUR' },
      { Name: 'Unsaid', Amount: 1000, CurrencyIsoCode: 'GBP' },
    ]);
    // An update that leaves the currency out keeps it; one naming an inactive one is refused.
    await conn.sobject('Opportunity').update({ Id: results[0]!.id, Amount: 2000 } as never);
    expect(await errorOf(conn.sobject('Opportunity').update({ Id: results[0]!.id, CurrencyIsoCode: 'XYZ' } as never))).toMatchObject({ errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST' });
    const euros = await conn.query<{ Amount: number }>("SELECT Amount FROM Opportunity WHERE CurrencyIsoCode = 'EUR'");
    expect(euros.records.map((row) => row.Amount)).toEqual([2000]);
  });

  it('upserts custom records with their currency, through sObject Collections', async () => {
    const results = (await conn.sobject('Marketplace_Entitlement__c').upsert(
      [{ Name: 'Yen', Commerce_Entitlement_Id__c: 'e-jpy', Commit_Amount__c: 500000, CurrencyIsoCode: 'JPY' }, { Name: 'Default', Commerce_Entitlement_Id__c: 'e-default' }] as never[],
      'Commerce_Entitlement_Id__c',
    )) as unknown as { success: boolean }[];
    expect(results.map((result) => result.success)).toEqual([true, true]);
    const rows: any[] = await control(sandbox, 'GET', '/records/Marketplace_Entitlement__c');
    expect(Object.fromEntries(rows.map((row) => [row.Commerce_Entitlement_Id__c, row.CurrencyIsoCode]))).toEqual({ 'e-jpy': 'JPY', 'e-default': 'GBP' });
  });

  it('gives a custom object made through the Tooling API its CurrencyIsoCode too', async () => {
    await conn.tooling.create('CustomObject', { FullName: 'Invoice__c', Metadata: { label: 'Invoice', pluralLabel: 'Invoices', nameField: { type: 'Text', label: 'Invoice Name' }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' } } as never);
    // A new object is the integration user's once a permission set grants it (field-level security).
    const userId = (await conn.identity()).user_id;
    const set = (await conn.sobject('PermissionSet').create({ Name: 'Invoices', Label: 'Invoices' })) as { id: string };
    await conn.sobject('ObjectPermissions').create({ ParentId: set.id, SobjectType: 'Invoice__c', PermissionsRead: true, PermissionsCreate: true, PermissionsEdit: true });
    await conn.sobject('PermissionSetAssignment').create({ AssigneeId: userId, PermissionSetId: set.id });
    const currency = (await conn.sobject('Invoice__c').describe()).fields.find((f) => f.name === 'CurrencyIsoCode');
    expect(currency).toMatchObject({ type: 'picklist', restrictedPicklist: true, label: 'Currency ISO Code' });
    const made = (await conn.sobject('Invoice__c').create({ Name: 'INV-1' })) as { id: string };
    expect((await conn.query<{ CurrencyIsoCode: string }>(`SELECT CurrencyIsoCode FROM Invoice__c WHERE Id = '${made.id}'`)).records[0]!.CurrencyIsoCode).toBe('GBP');
  });
});

describe('Salesforce sandbox: a single-currency org', () => {
  it('has no CurrencyIsoCode to read or write', async () => {
    const sandbox = await startSalesforceSandbox();
    try {
      const { conn } = await clientCredentialsConnection(sandbox);
      expect(await errorOf(conn.query('SELECT Id, CurrencyIsoCode FROM Account'))).toMatchObject({ errorCode: 'INVALID_FIELD' });
      expect(await errorOf(conn.sobject('Marketplace_Entitlement__c').create({ Name: 'x', CurrencyIsoCode: 'USD' }))).toMatchObject({ errorCode: 'INVALID_FIELD' });
    } finally {
      await sandbox.stop();
    }
  });

  it('refuses a multi-currency option that is not one, naming what it expects', async () => {
    await expect(startSalesforceSandbox({ multiCurrency: { corporate: 'USD', active: ['USD', 'euro'] } })).rejects.toThrow(/multiCurrency.active must be a list of ISO 4217 codes .*"euro" is not one/);
    await expect(startSalesforceSandbox({ multiCurrency: { corporate: 'CHF', active: ['USD', 'EUR'] } })).rejects.toThrow(/multiCurrency.corporate must be one of the active currencies \(USD, EUR\), not "CHF"/);
    await expect(startSalesforceSandbox({ multiCurrency: { corporate: 'USD', active: ['USD'], userCurrency: 'EUR' } })).rejects.toThrow(/multiCurrency.userCurrency must be one of the active currencies \(USD\), not "EUR"/);
  });
});
