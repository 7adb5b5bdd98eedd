// A currency dropped from a product dimension (issue #28 section 1 review, item 9): on Salesforce the
// connection price book's entry in that currency, which the CRM holds, becomes inactive with its price
// left as it was; an entry never written is not made; the standard price and Dynamics' price list
// items are left (docs/catalogue.md). A fake commerce client serves the products; a fake CRM describes
// the org's currencies; expected values are written by hand.
import { describe, expect, it } from 'vitest';
import { duePrices } from '../../flows/catalogue-reads.ts';
import { priceToPricebookEntry } from '../../mappings/salesforce/catalogue.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

const product = {
  id: 'prod-1',
  lastUpdateTime: '2026-02-01T10:00:00.000Z',
  name: 'Ledger',
  status: 'PUBLIC',
  // Priced in USD only now: its EUR and GBP prices were dropped.
  info: { dimensions: [{ key: 'seats', name: 'Seats', prices: [{ currency: 'USD', pricePerUnit: 10 }] }] },
};
const commerce = {
  products: {
    async *query() {
      yield { records: [product], rejected: [], position: 1 };
    },
  },
} as never;
const crm = {
  kind: 'salesforce',
  async describe() {
    return { name: 'PricebookEntry', fields: new Map([['CurrencyIsoCode', { name: 'CurrencyIsoCode', picklistValues: ['USD', 'EUR', 'GBP'] }]]) };
  },
} as never;
const settings = connectionSettingsSchema.parse({
  crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 'c', catalogueIds: { priceBookId: '01s000000000002AAA', standardPriceBookId: '01s000000000001AAA' } },
  commerce: { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
});
const mappings = { 'catalogue-price': priceToPricebookEntry, 'catalogue-standard-price': priceToPricebookEntry };
// The CRM holds the EUR entry (linked); GBP was never written.
const linked = async (ids: string[]) => new Set(ids.filter((id) => id === 'prod-1|seats|EUR'));

describe('prices of a currency a dimension is no longer priced in', () => {
  it("Salesforce's connection price book: the held entry becomes inactive, its price untouched; one never written is not made", async () => {
    const read = await duePrices('named')(commerce, 'org-1', { settings, pageSize: 100, crm, mappings, linked, entity: 'catalogue-price' });
    expect(read.records.map((record) => [record.id, record.withdrawn ?? false])).toEqual([
      ['prod-1|seats|USD', false],
      ['prod-1|seats|EUR', true],
    ]);
    const withdrawn = priceToPricebookEntry.map(read.records[1]!, undefined);
    expect(withdrawn).toEqual({
      ok: true,
      record: {
        object: 'PricebookEntry',
        externalIdField: 'Commerce_Price_Entry_Key__c',
        externalId: 'prod-1|seats|EUR',
        fields: { Product2: { Commerce_Price_Key__c: 'prod-1|seats' }, Pricebook2Id: '01s000000000002AAA', IsActive: false, UseStandardPrice: false, CurrencyIsoCode: 'EUR' },
      },
    });
  });

  it('the standard price book is left as it is (a book entry needs an active standard price)', async () => {
    const read = await duePrices('standard')(commerce, 'org-1', { settings, pageSize: 100, crm, mappings, linked: async (ids) => new Set(ids), entity: 'catalogue-standard-price' });
    expect(read.records.map((record) => record.id)).toEqual(['prod-1|seats|USD|standard']);
  });
});
