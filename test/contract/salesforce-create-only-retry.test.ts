// The Salesforce connector against the sandbox (crm/salesforce/create-only-retry.ts): an upsert by
// external id that matches a record Salesforce holds, carrying fields Salesforce takes only when a
// record is made (PricebookEntry's Product2Id by its relationship, Pricebook2Id), is refused
// INVALID_FIELD_FOR_INSERT_UPDATE; the connector sends it once more without them and the record is
// updated, by sObject Collections and after a Bulk API 2.0 job alike. A record refused that way with no
// create-only field keeps the refusal, sent once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const KEY = 'Commerce_Price_Entry_Key__c';

describe('Salesforce connector: a record whose link was lost is upserted again without its create-only fields', () => {
  let sandbox: SalesforceSandbox;
  const connector = (bulkThreshold = 2000) =>
    createSalesforceConnector({ loginUrl: sandbox.loginUrl, bulkThreshold, bulkPollIntervalMs: 20, lookbackSeconds: 0 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ customMetadata: 'deployed' });
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  /** The standard price of product `key`, as the catalogue sends it: product by its key, the standard book's id. */
  async function standardPrice(key: string, price: number): Promise<UpsertItem> {
    const { conn } = await clientCredentialsConnection(sandbox);
    const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).records[0]!.Id;
    return { sourceId: `${key}|USD|standard`, externalIdField: KEY, externalId: `${key}|USD|standard`, fields: { Product2: { Commerce_Price_Key__c: key }, Pricebook2Id: standard, UnitPrice: price, IsActive: true } };
  }
  async function product(key: string) {
    const [made] = await connector().upsert('Product2', [{ sourceId: key, externalIdField: 'Commerce_Price_Key__c', externalId: key, fields: { Name: `Product ${key}`, IsActive: true } }]);
    expect(made).toMatchObject({ ok: true, created: true });
  }
  const entryPrices = async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    return (await conn.query<{ UnitPrice: number }>(`SELECT UnitPrice FROM PricebookEntry`)).records.map((row) => row.UnitPrice);
  };

  it('by sObject Collections: the second upsert (no link, create-only fields sent) updates the entry, one extra call', async () => {
    await product("p'1|seats");
    const [made] = await connector().upsert('PricebookEntry', [await standardPrice("p'1|seats", 10)]);
    expect(made).toMatchObject({ ok: true, created: true });
    await control(sandbox, 'POST', '/calls/reset');
    const [again] = await connector().upsert('PricebookEntry', [await standardPrice("p'1|seats", 12)]);
    expect(again).toEqual({ sourceId: "p'1|seats|USD|standard", ok: true, crmId: (made as { crmId: string }).crmId, created: false });
    expect(await entryPrices()).toEqual([12]);
    // The refused upsert and the one sent again.
    expect((await callCounts(sandbox))['composite-upsert']).toBe(2);
  });

  it('after a Bulk API 2.0 job: the refused rows go again by collections and update their entries', async () => {
    await product('p-2|seats');
    await product('p-3|seats');
    const items = [await standardPrice('p-2|seats', 5), await standardPrice('p-3|seats', 6)];
    expect(await connector(1).upsert('PricebookEntry', items)).toMatchObject([{ ok: true, created: true }, { ok: true, created: true }]);
    const again = await connector(1).upsert('PricebookEntry', items.map((item) => ({ ...item, fields: { ...item.fields, UnitPrice: Number(item.fields.UnitPrice) + 1 } })));
    expect(again).toMatchObject([{ ok: true, created: false }, { ok: true, created: false }]);
    expect((await entryPrices()).sort()).toEqual([6, 7]);
  });

  it('a record refused for a field it may not write, with no create-only field, keeps the refusal (sent once)', async () => {
    await product('p-4|seats');
    await control(sandbox, 'POST', '/calls/reset');
    // CreatedDate is the org's own (neither createable nor updateable).
    const [refused] = await connector().upsert('Product2', [{ sourceId: 'p-4|seats', externalIdField: 'Commerce_Price_Key__c', externalId: 'p-4|seats', fields: { Name: 'Renamed', CreatedDate: '2020-01-01T00:00:00.000Z' } }]);
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_FIELD_FOR_INSERT_UPDATE' } });
    expect((await callCounts(sandbox))['composite-upsert']).toBe(1);
  });
});
