// The product catalogue on Salesforce (issue #28 section 1; docs/catalogue.md): a product dimension ->
// Product2 keyed by Commerce_Price_Key__c ("productId|dimensionKey"), its prices -> PricebookEntry keyed
// by Commerce_Price_Entry_Key__c: first the standard price book's entry (Salesforce refuses any other
// price of a product before its standard price: STANDARD_PRICE_NOT_DEFINED), then the connection's price
// book's, one per currency the org has. An entry's product, price book and currency are set when it is
// made and never changed (Salesforce refuses changing them: createOnly; an entry whose link was lost is
// sent again without them by the connector, crm/salesforce/create-only-retry.ts). A DELETED commerce
// product makes its Product2 and its book entries inactive, never deleted; its standard price stays
// active, since a book entry needs an active standard price (mappings/canonical/catalogue.ts). Wire facts: docs/crm-wire-behaviour.md, "Products,
// price books and opportunity products". The values are the canonical ones (mappings/canonical/catalogue.ts).
import { CATALOGUE_PRICE, CATALOGUE_PRODUCT, CATALOGUE_STANDARD_PRICE, catalogueNeeds, type CatalogueItem, type CataloguePriceItem } from '../canonical/catalogue.ts';
import { canonicalMapping, lookup, type CanonicalRecord } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

/** Product2's Name holds 255 characters. */
const cut = (value: string, length: number) => (value.length > length ? `${value.slice(0, length - 1)}…` : value);

export const catalogueToProduct2: EntityMapping<CatalogueItem> = canonicalMapping(CATALOGUE_PRODUCT, {
  object: 'Product2',
  externalIdField: 'Commerce_Price_Key__c',
  fields: {
    Name: { describe: 'product name and dimension name, "<product> - <dimension>" (255 characters at most)', value: (product) => cut(product.name, 255) },
    ProductCode: 'dimensionKey',
    Description: 'description',
    IsActive: 'active',
    Commerce_Product_Id__c: 'productId',
    Commerce_Dimension_Key__c: 'dimensionKey',
  },
});

function priceBookEntry(canonical: CanonicalRecord<CataloguePriceItem, unknown, any>, book: string): EntityMapping<CataloguePriceItem> {
  const mapping = canonicalMapping(canonical, {
    object: 'PricebookEntry',
    externalIdField: 'Commerce_Price_Entry_Key__c',
    fields: {
      Product2: lookup('priceKey', 'Commerce_Price_Key__c', 'the Product2, by Commerce_Price_Key__c = productId|dimensionKey (set when the entry is made)'),
      Pricebook2Id: 'priceBookId',
      UnitPrice: 'unitPrice',
      IsActive: 'active',
      UseStandardPrice: { describe: 'false: the entry holds its own price', value: () => false },
      CurrencyIsoCode: 'currency',
    },
    // Salesforce takes an entry's product, price book and currency only when it is made.
    createOnly: ['Product2', 'Pricebook2Id', 'CurrencyIsoCode'],
    // A single-currency org has no CurrencyIsoCode: its prices are in the org's one currency.
    optionalFields: ['CurrencyIsoCode'],
  });
  return catalogueNeeds(mapping, canonical, { priceBookId: book });
}

export const standardPriceToPricebookEntry = priceBookEntry(CATALOGUE_STANDARD_PRICE, "standard price book's id (catalogueIds.standardPriceBookId)");
export const priceToPricebookEntry = priceBookEntry(CATALOGUE_PRICE, "price book's id (catalogueIds.priceBookId)");
