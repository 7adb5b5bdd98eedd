// The canonical catalogue records (mappings/canonical/catalogue.ts) and each CRM's table taking them, with
// expected values written by hand; the settings' entities carrying the price flows with `catalogue`
// (mappings/types.ts withCatalogueFlows), each CRM's as its flows map them.
import { describe, expect, it } from 'vitest';
import { FLOWS } from '../../flows/index.ts';
import type { CatalogueItem, CataloguePriceItem } from '../../mappings/canonical/catalogue.ts';
import { CATALOGUE_PRICE, CATALOGUE_PRODUCT, CATALOGUE_STANDARD_PRICE, catalogueCaseTwins } from '../../mappings/canonical/catalogue.ts';
import { catalogueToDynamicsProduct, priceToDynamicsPriceListItem, productNumberOf } from '../../mappings/dynamics/catalogue.ts';
import { catalogueToHubSpotProduct } from '../../mappings/hubspot/catalogue.ts';
import { catalogueToProduct2, priceToPricebookEntry, standardPriceToPricebookEntry } from '../../mappings/salesforce/catalogue.ts';
import { CATALOGUE_PRICE_FLOWS_BY_KIND } from '../../mappings/types.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

// Quotes, a backslash, a pipe and unicode: values that end up in keys, queries and names.
const HOSTILE = `O'Brien "Ledger" \\ Réporting | 数据 💡`;
const product = {
  id: 'prod-000001',
  lastUpdateTime: '2026-02-01T10:00:00.000Z',
  name: HOSTILE,
  status: 'PUBLIC',
  info: {
    dimensions: [
      { key: 'seats', name: 'Named users', description: 'A user who signs in', unit: 'Users', type: 'COMMIT', prices: [{ currency: 'USD', pricePerUnit: 12.5 }, { currency: 'EUR', pricePerUnit: 11 }] },
      { key: "api'calls", unit: 'Million queries', type: 'METERED', prices: [{ currency: 'USD', pricePerUnit: 0.25 }] },
    ],
  },
};
const SALESFORCE_IDS = { standardPriceBookId: '01s000000000001AAA', priceBookId: '01s000000000002AAA' };
const DYNAMICS_IDS = { unitGroupId: '11111111-1111-4111-8111-111111111111', baseUnitId: '22222222-2222-4222-8222-222222222222', 'priceList:USD': '33333333-3333-4333-8333-333333333333' };

const item = (dimension: number, extra: Partial<CatalogueItem> = {}, source = product): CatalogueItem => ({
  id: `prod-000001|${source.info.dimensions[dimension]!.key}`,
  lastUpdateTime: source.lastUpdateTime,
  product: source,
  dimension: source.info.dimensions[dimension]!,
  ...extra,
});
const priceItem = (currency: string, standard: boolean, crmIds: Record<string, string> | undefined, bookIdKey: string, source = product): CataloguePriceItem => ({
  ...item(0, crmIds ? { crmIds } : {}, source),
  id: `prod-000001|seats|${currency}${standard ? '|standard' : ''}`,
  priceKey: 'prod-000001|seats',
  currency,
  bookIdKey,
});
const deleted = { ...product, status: 'DELETED', lastUpdateTime: '2026-02-03T00:00:00.000Z' };

describe('the canonical catalogue product', () => {
  it('is one dimension of a product: its key, names, unit, type, prices and whether it is listed', () => {
    expect(CATALOGUE_PRODUCT.compute(item(0, { crmIds: DYNAMICS_IDS, crmCurrency: 'EUR', crmCurrencies: ['USD', 'GBP'] }), undefined)).toEqual({
      ok: true,
      value: {
        key: 'prod-000001|seats',
        productId: 'prod-000001',
        dimensionKey: 'seats',
        name: `${HOSTILE} - Named users`,
        description: 'A user who signs in',
        unit: 'Users',
        dimensionType: 'COMMIT',
        active: true,
        prices: { USD: 12.5, EUR: 11 },
        crmCurrencyPrice: 11,
        // The CRM's other currencies the dimension is priced in (GBP: not priced; EUR: the CRM's own).
        otherCurrencyPrices: { USD: 12.5 },
        unitGroupId: '11111111-1111-4111-8111-111111111111',
        baseUnitId: '22222222-2222-4222-8222-222222222222',
      },
    });
  });

  it('names a dimension without a name by its key, and a DELETED product is inactive', () => {
    const computed = CATALOGUE_PRODUCT.compute(item(1, {}, deleted), undefined);
    expect(computed).toMatchObject({ ok: true, value: { key: "prod-000001|api'calls", name: `${HOSTILE} - api'calls`, active: false, prices: { USD: 0.25 }, crmCurrencyPrice: undefined } });
  });
});

describe('the canonical catalogue prices', () => {
  it('a named price book entry: its key, product, currency, price and book', () => {
    expect(CATALOGUE_PRICE.compute(priceItem('EUR', false, SALESFORCE_IDS, 'priceBookId'), undefined)).toEqual({
      ok: true,
      value: { key: 'prod-000001|seats|EUR', priceKey: 'prod-000001|seats', currency: 'EUR', unitPrice: 11, active: true, priceBookId: '01s000000000002AAA', baseUnitId: undefined },
    });
  });
  it('a standard price book entry stays active once the product is DELETED (a book entry needs an active standard price); the book entry does not', () => {
    expect(CATALOGUE_STANDARD_PRICE.compute(priceItem('USD', true, SALESFORCE_IDS, 'standardPriceBookId', deleted), undefined)).toEqual({
      ok: true,
      value: { key: 'prod-000001|seats|USD|standard', priceKey: 'prod-000001|seats', currency: 'USD', unitPrice: 12.5, active: true, priceBookId: '01s000000000001AAA', baseUnitId: undefined },
    });
    expect(CATALOGUE_PRICE.compute(priceItem('USD', false, SALESFORCE_IDS, 'priceBookId', deleted), undefined)).toMatchObject({ ok: true, value: { active: false } });
  });
  it('a currency the dimension is not priced in is refused', () => {
    expect(CATALOGUE_PRICE.compute(priceItem('JPY', false, SALESFORCE_IDS, 'priceBookId'), undefined)).toEqual({ ok: false, reason: 'product prod-000001 has no JPY price for its dimension seats' });
  });
});

describe('each CRM table takes the canonical values', () => {
  it('Salesforce Product2 by Commerce_Price_Key__c', () => {
    const mapped = catalogueToProduct2.map(item(0), undefined);
    expect(mapped).toEqual({
      ok: true,
      record: {
        object: 'Product2',
        externalIdField: 'Commerce_Price_Key__c',
        externalId: 'prod-000001|seats',
        fields: { Name: `${HOSTILE} - Named users`, ProductCode: 'seats', Description: 'A user who signs in', IsActive: true, Commerce_Product_Id__c: 'prod-000001', Commerce_Dimension_Key__c: 'seats' },
      },
    });
  });

  it('Salesforce PricebookEntry by Commerce_Price_Entry_Key__c, its product, book and currency set only when made', () => {
    expect(standardPriceToPricebookEntry.map(priceItem('USD', true, SALESFORCE_IDS, 'standardPriceBookId'), undefined)).toEqual({
      ok: true,
      record: {
        object: 'PricebookEntry',
        externalIdField: 'Commerce_Price_Entry_Key__c',
        externalId: 'prod-000001|seats|USD|standard',
        fields: { Product2: { Commerce_Price_Key__c: 'prod-000001|seats' }, Pricebook2Id: '01s000000000001AAA', UnitPrice: 12.5, IsActive: true, UseStandardPrice: false, CurrencyIsoCode: 'USD' },
      },
    });
    expect(priceToPricebookEntry.createOnly).toEqual(['Product2', 'Pricebook2Id', 'CurrencyIsoCode']);
    expect(priceToPricebookEntry.optionalFields).toEqual(['CurrencyIsoCode']);
  });

  it('a price without the price book setup keeps is refused, telling revenue ops to run setup', () => {
    const refused = priceToPricebookEntry.map(priceItem('USD', false, { standardPriceBookId: '01s000000000001AAA' }, 'priceBookId'), undefined);
    expect(refused).toEqual({
      ok: false,
      reason: "the connection has no price book's id (catalogueIds.priceBookId) from setup: run `crm-sync setup` for this connection (it finds or makes them and keeps their ids), then the next sync writes this record",
    });
  });

  it('a price with no setup ids at all is refused the same way (a retry reads the ids with its record)', () => {
    expect(priceToPricebookEntry.map(priceItem('USD', false, undefined, 'priceBookId'), undefined)).toEqual({
      ok: false,
      reason: "the connection has no price book's id (catalogueIds.priceBookId) from setup: run `crm-sync setup` for this connection (it finds or makes them and keeps their ids), then the next sync writes this record",
    });
  });

  it('keys differing only in letter case: the first in code point order is kept, the others refused naming both', () => {
    expect(catalogueCaseTwins(['prod-1|seats', 'prod-1|Seats', 'prod-1|SEATS', 'prod-1|gb', 'prod-2|seats'])).toEqual(
      new Map([
        ['prod-1|seats', 'prod-1|SEATS'],
        ['prod-1|Seats', 'prod-1|SEATS'],
      ]),
    );
    const refused = `the price key "prod-000001|seats" differs from "prod-000001|Seats" only in letter case, and Salesforce's unique external ids and Dataverse's keys ignore case: the CRM would take both for one record. "prod-000001|Seats" is written; this one is skipped until one of the two dimension keys changes on the commerce side`;
    expect(catalogueToProduct2.map(item(0, { caseTwinOf: 'prod-000001|Seats' }), undefined)).toEqual({ ok: false, reason: refused });
    expect(priceToPricebookEntry.map({ ...priceItem('USD', false, SALESFORCE_IDS, 'priceBookId'), caseTwinOf: 'prod-000001|Seats' }, undefined)).toEqual({ ok: false, reason: refused });
  });

  it('HubSpot product by commerce_price_key: price in the company currency, hs_price_<code> for the account\'s other currencies', () => {
    expect(catalogueToHubSpotProduct.map(item(0, { crmCurrency: 'USD', crmCurrencies: ['EUR', 'GBP'] }), undefined)).toEqual({
      ok: true,
      record: {
        object: 'products',
        externalIdField: 'commerce_price_key',
        externalId: 'prod-000001|seats',
        fields: { name: `${HOSTILE} - Named users`, description: 'A user who signs in', hs_sku: 'seats', price: 12.5, commerce_product_id: 'prod-000001', commerce_dimension_key: 'seats', hs_price_eur: 11 },
      },
    });
    // A single-currency account in EUR: price is the EUR one, no per-currency property.
    expect(catalogueToHubSpotProduct.map(item(0, { crmCurrency: 'EUR', crmCurrencies: [] }), undefined)).toMatchObject({ ok: true, record: { fields: { price: 11 } } });
    expect((catalogueToHubSpotProduct.map(item(0, { crmCurrency: 'EUR', crmCurrencies: [] }), undefined) as any).record.fields).not.toHaveProperty('hs_price_usd');
    expect(catalogueToHubSpotProduct.keyNeedNotBeUnique).toBe(true);
  });

  it('Dynamics product by ccs_pricekey in the unit group, its default unit the base unit', () => {
    expect(catalogueToDynamicsProduct.map(item(0, { crmIds: DYNAMICS_IDS }), undefined)).toEqual({
      ok: true,
      record: {
        object: 'product',
        externalIdField: 'ccs_pricekey',
        externalId: 'prod-000001|seats',
        fields: {
          name: `${HOSTILE} - Named users`,
          productnumber: 'prod-000001|seats',
          description: 'A user who signs in',
          ccs_commerceproductid: 'prod-000001',
          ccs_dimensionkey: 'seats',
          defaultuomscheduleid: '11111111-1111-4111-8111-111111111111',
          defaultuomid: '22222222-2222-4222-8222-222222222222',
          quantitydecimal: 2,
        },
      },
    });
    expect(catalogueToDynamicsProduct.map(item(0, { crmIds: { unitGroupId: DYNAMICS_IDS.unitGroupId } }), undefined)).toEqual({
      ok: false,
      reason: "the connection has no base unit's id (catalogueIds.baseUnitId) from setup: run `crm-sync setup` for this connection (it finds or makes them and keeps their ids), then the next sync writes this record",
    });
  });

  it('Dynamics product numbers stay unique for keys longer than the column (100): the start, "~" and 8 hex digits of the SHA-256', () => {
    const common = `prod-000001|${'d'.repeat(120)}`;
    // SHA-256 digests of the two keys, computed apart (printf '%s' <key> | sha256sum): 8 first hex digits.
    expect(productNumberOf(`${common}-a`)).toBe(`${common.slice(0, 91)}~c5f37b91`);
    expect(productNumberOf(`${common}-b`)).toBe(`${common.slice(0, 91)}~15bc7bcd`);
    expect(productNumberOf(`${common}-a`)).toHaveLength(100);
    expect(productNumberOf('prod-000001|seats')).toBe('prod-000001|seats');
    expect(productNumberOf('x'.repeat(100))).toBe('x'.repeat(100));
  });

  it('Dynamics price list item by ccs_priceentrykey: price list, product by its key, base unit, amount, Currency Amount', () => {
    expect(priceToDynamicsPriceListItem.map(priceItem('USD', false, DYNAMICS_IDS, 'priceList:USD'), undefined)).toEqual({
      ok: true,
      record: {
        object: 'productpricelevel',
        externalIdField: 'ccs_priceentrykey',
        externalId: 'prod-000001|seats|USD',
        fields: {
          pricelevelid: '33333333-3333-4333-8333-333333333333',
          productid: { ccs_pricekey: 'prod-000001|seats' },
          uomid: '22222222-2222-4222-8222-222222222222',
          amount: 12.5,
          pricingmethodcode: 1,
        },
      },
    });
  });
});

describe('a connection choosing the catalogue', () => {
  const settingsOf = (kind: string, entities: string[]) => {
    const crm = {
      salesforce: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 'c' },
      hubspot: { kind: 'hubspot', auth: 'private-app' },
      dynamics: { kind: 'dynamics', orgUrl: 'https://org.crm.dynamics.com', tenantId: 't', clientId: 'c' },
    }[kind];
    return connectionSettingsSchema.safeParse({ commerce: { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'o' }, crm, entities });
  };

  it.each([
    ['salesforce', ['buyer', 'catalogue-standard-price', 'catalogue-price']],
    ['hubspot', ['buyer']],
    ['dynamics', ['buyer', 'catalogue-price']],
  ])('%s: carries its price flows exactly when catalogue is chosen', (kind, expected) => {
    const chosen = settingsOf(kind, ['buyer', 'catalogue']);
    expect(chosen.success, JSON.stringify(chosen.error?.issues)).toBe(true);
    expect(chosen.data!.entities).toEqual(['buyer', 'catalogue', ...expected.slice(1)]);
    // A price flow without catalogue is dropped; one given twice is carried once.
    expect(settingsOf(kind, ['buyer', 'catalogue-price']).data!.entities).toEqual(['buyer']);
    expect(settingsOf(kind, ['catalogue', 'catalogue-price', 'buyer']).data!.entities).toEqual(['catalogue', 'buyer', ...expected.slice(1)]);
  });

  it('the price flows per CRM kind are the ones the flows map for it', () => {
    for (const kind of ['salesforce', 'hubspot', 'dynamics'] as const) {
      const mapped = (['catalogue-standard-price', 'catalogue-price'] as const).filter((flow) => FLOWS[flow].mappings[kind]);
      expect(CATALOGUE_PRICE_FLOWS_BY_KIND[kind], kind).toEqual(mapped);
    }
    // Parents first: products, then standard prices, then the named book's prices.
    expect(FLOWS['catalogue-price'].parents).toEqual(['catalogue', 'catalogue-standard-price']);
  });
});
