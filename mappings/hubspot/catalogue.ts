// The product catalogue on HubSpot (issue #28 section 1; docs/catalogue.md): a product dimension -> a
// product of the product library, keyed by commerce_price_key ("productId|dimensionKey"). HubSpot keeps
// a product's price on the product: `price` in the account's company currency, and in an account with
// more currencies `hs_price_<code>` for each of them (docs/crm-wire-behaviour.md, HubSpot "Products and
// line items"): so HubSpot has no price flows. HubSpot has no unique-value properties on products, so
// the key is a plain property: the connector finds a product by searching it before making one, each
// create sent once (crm/hubspot/create-once.ts), as for the timeline's tasks. A DELETED commerce product
// is left as it is: HubSpot products have no active flag; HubSpot's way to take one out of the library
// is to archive it ("Move an Object identified by {productId} to the recycling bin", the products API's
// archive), which the sync never does: nothing is deleted, and a seller may still need the product to
// read old deals. The values are the canonical ones (mappings/canonical/catalogue.ts).
import { CATALOGUE_PRODUCT, type CatalogueItem } from '../canonical/catalogue.ts';
import { canonicalMapping, fieldsOf } from '../canonical/record.ts';
import { fail, ok, type EntityMapping } from '../types.ts';

/** HubSpot's per-currency price property of a product (lower-case code). */
export const currencyPriceProperty = (currency: string) => `hs_price_${currency.toLowerCase()}`;

const base = canonicalMapping(CATALOGUE_PRODUCT, {
  object: 'products',
  externalIdField: 'commerce_price_key',
  fields: {
    name: 'name',
    description: 'description',
    hs_sku: 'dimensionKey',
    price: 'crmCurrencyPrice',
    commerce_product_id: 'productId',
    commerce_dimension_key: 'dimensionKey',
  },
});

export const catalogueToHubSpotProduct: EntityMapping<CatalogueItem> = {
  ...base,
  // The table's fields, and hs_price_<code> for each of the canonical otherCurrencyPrices: not in
  // `describe` (whose fields every account must have), since hs_price_<code> exists only for the
  // account's currencies, and is written only for those (docs/catalogue.md).
  map(item, related) {
    const computed = CATALOGUE_PRODUCT.compute(item, related);
    if (!computed.ok) return fail(computed.reason);
    const perCurrency = Object.fromEntries(Object.entries(computed.value.otherCurrencyPrices).map(([currency, price]) => [currencyPriceProperty(currency), price]));
    return ok({ object: base.object, externalIdField: base.externalIdField, externalId: CATALOGUE_PRODUCT.id(computed.value), fields: { ...fieldsOf(computed.value, base.table), ...perCurrency } });
  },
  keyNeedNotBeUnique: true,
};
