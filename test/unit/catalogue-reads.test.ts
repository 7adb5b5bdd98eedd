// The catalogue's reads (flows/catalogue-reads.ts) against a stub commerce client and CRM: every product
// read with paging only, one item per dimension with the connection's catalogueIds, prices only in the
// currencies the CRM org has (Salesforce: multi-currency picklist or its one currency; Dynamics: the price
// lists setup made), and reads by id that parse the key (a hostile dimension key with quotes and a pipe).
import { describe, expect, it } from 'vitest';
import { catalogueItemById, cataloguePriceById, dueCatalogue, duePrices } from '../../flows/catalogue-reads.ts';

const DIMENSION_KEY = `o'k "seats" | 数`;
const PRODUCTS = [
  {
    id: 'prod-1', lastUpdateTime: '2026-02-01T00:00:00.000Z', name: 'One', status: 'PUBLIC',
    info: { dimensions: [{ key: DIMENSION_KEY, prices: [{ currency: 'USD', pricePerUnit: 2 }, { currency: 'EUR', pricePerUnit: 1.8 }, { currency: 'JPY', pricePerUnit: 300 }] }] },
  },
  { id: 'prod-2', lastUpdateTime: '2026-02-02T00:00:00.000Z', name: 'Two', status: 'DELETED', info: { dimensions: [{ key: 'gb', prices: [{ currency: 'USD', pricePerUnit: 0.1 }] }, { key: 'tb', prices: [{ currency: 'USD', pricePerUnit: 90 }] }] } },
];

/** A commerce client holding PRODUCTS, answering query in pages of one, and what it was asked. */
function stubCommerce() {
  const asked: unknown[] = [];
  const commerce = {
    products: {
      async *query(_orgId: string, options: unknown) {
        asked.push(options);
        for (const product of PRODUCTS) yield { records: [product], rejected: [] };
      },
      async get(_orgId: string, id: string) {
        const product = PRODUCTS.find((row) => row.id === id);
        if (!product) throw Object.assign(new Error('not found'), { status: 404 });
        return product;
      },
    },
  };
  return { commerce: commerce as never, asked };
}

const settingsOf = (kind: string, catalogueIds: Record<string, string>) => ({ crm: { kind, catalogueIds } }) as never;
const crmOf = (kind: string, fields: [string, { picklistValues?: string[] }][], currency = 'USD') =>
  ({ kind, describe: async () => ({ fields: new Map(fields) }), defaultCurrency: async () => currency }) as never;

describe('the catalogue read', () => {
  it('reads every product, paging only (no filter), and makes one item per dimension with the connection ids', async () => {
    const { commerce, asked } = stubCommerce();
    const read = await dueCatalogue(commerce, 'org', { settings: settingsOf('salesforce', { priceBookId: 'pb' }), pageSize: 500, crm: crmOf('salesforce', []) });
    expect(asked).toEqual([{ s: 'id:asc', pageSize: 500 }]);
    expect(read.records.map((item) => [item.id, item.lastUpdateTime, item.crmIds])).toEqual([
      [`prod-1|${DIMENSION_KEY}`, '2026-02-01T00:00:00.000Z', { priceBookId: 'pb' }],
      ['prod-2|gb', '2026-02-02T00:00:00.000Z', { priceBookId: 'pb' }],
      ['prod-2|tb', '2026-02-02T00:00:00.000Z', { priceBookId: 'pb' }],
    ]);
  });

  it('HubSpot: the company currency and the currencies the account has an hs_price_<code> property for', async () => {
    const { commerce } = stubCommerce();
    const crm = crmOf('hubspot', [['price', {}], ['hs_price_eur', {}], ['hs_price_gbp', {}], ['hs_price_note', {}]], 'USD');
    const read = await dueCatalogue(commerce, 'org', { settings: settingsOf('hubspot', {}), pageSize: 100, crm });
    expect(read.records[0]).toMatchObject({ crmCurrency: 'USD', crmCurrencies: ['EUR', 'GBP'] });
  });
});

describe('the price reads', () => {
  it('Salesforce single-currency: the standard entries in the org currency only', async () => {
    const { commerce } = stubCommerce();
    const read = await duePrices('standard')(commerce, 'org', { settings: settingsOf('salesforce', { standardPriceBookId: 'std' }), pageSize: 100, crm: crmOf('salesforce', [['UnitPrice', {}]], 'EUR'), mappings: { x: { object: 'PricebookEntry' } as never }, entity: 'x' });
    expect(read.records.map((item) => [item.id, item.priceKey, item.currency, item.bookIdKey])).toEqual([[`prod-1|${DIMENSION_KEY}|EUR|standard`, `prod-1|${DIMENSION_KEY}`, 'EUR', 'standardPriceBookId']]);
  });

  it('Salesforce multi-currency: the named book in each active currency the dimension is priced in', async () => {
    const { commerce } = stubCommerce();
    const crm = crmOf('salesforce', [['CurrencyIsoCode', { picklistValues: ['USD', 'JPY', 'GBP'] }]]);
    const read = await duePrices('named')(commerce, 'org', { settings: settingsOf('salesforce', { priceBookId: 'pb' }), pageSize: 100, crm, mappings: { x: { object: 'PricebookEntry' } as never }, entity: 'x' });
    expect(read.records.map((item) => item.id)).toEqual([`prod-1|${DIMENSION_KEY}|USD`, `prod-1|${DIMENSION_KEY}|JPY`, 'prod-2|gb|USD', 'prod-2|tb|USD']);
    expect(new Set(read.records.map((item) => item.bookIdKey))).toEqual(new Set(['priceBookId']));
  });

  it('Dynamics: the currencies with a price list setup made, each price in its own list', async () => {
    const { commerce } = stubCommerce();
    const ids = { unitGroupId: 'g', baseUnitId: 'u', 'priceList:EUR': 'eur-list', 'priceList:GBP': 'gbp-list' };
    const read = await duePrices('named')(commerce, 'org', { settings: settingsOf('dynamics', ids), pageSize: 100, crm: crmOf('dynamics', []), entity: 'x' });
    expect(read.records.map((item) => [item.id, item.bookIdKey])).toEqual([[`prod-1|${DIMENSION_KEY}|EUR`, 'priceList:EUR']]);
  });
});

describe('reads by key (dead-letter retries)', () => {
  it('a product dimension by productId|dimensionKey, the key holding quotes and a pipe', async () => {
    const { commerce } = stubCommerce();
    const item = await catalogueItemById(commerce, 'org', `prod-1|${DIMENSION_KEY}`);
    expect([item.id, item.product.id, item.dimension.key, item.crmIds]).toEqual([`prod-1|${DIMENSION_KEY}`, 'prod-1', DIMENSION_KEY, undefined]);
  });

  it('a price by its entry key, standard or named', async () => {
    const { commerce } = stubCommerce();
    expect(await cataloguePriceById(commerce, 'org', `prod-1|${DIMENSION_KEY}|EUR|standard`, 'standard')).toMatchObject({ id: `prod-1|${DIMENSION_KEY}|EUR|standard`, priceKey: `prod-1|${DIMENSION_KEY}`, currency: 'EUR' });
    expect(await cataloguePriceById(commerce, 'org', 'prod-2|tb|USD', 'named')).toMatchObject({ priceKey: 'prod-2|tb', currency: 'USD' });
  });

  it('a dimension the product no longer has, or a key without a product, is not found (404)', async () => {
    const { commerce } = stubCommerce();
    await expect(catalogueItemById(commerce, 'org', 'prod-2|pb')).rejects.toMatchObject({ status: 404, message: 'the commerce API has no dimension pb on product prod-2' });
    await expect(catalogueItemById(commerce, 'org', 'no-separator')).rejects.toMatchObject({ status: 404 });
  });
});
