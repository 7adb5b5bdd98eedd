// The product catalogue on Dynamics 365 (issue #28 section 1; docs/catalogue.md): a product dimension ->
// `product` keyed by its alternate key ccs_pricekey ("productId|dimensionKey"), in the unit group setup
// made with its base unit as default unit (Dataverse requires both), and its price in each currency with
// a price list -> `productpricelevel` keyed by ccs_priceentrykey ("<price key>|<currency>"), bound to the
// price list, the product (by its key) and the base unit, priced by Currency Amount (pricingmethodcode 1).
// A product is made Draft; it is published (Active) and, once its commerce product is DELETED, retired
// by a state change after the write (flows/catalogue-states.ts): never deleted. Wire facts:
// docs/crm-wire-behaviour.md, Dynamics "Products and line items". Values: mappings/canonical/catalogue.ts.
import { createHash } from 'node:crypto';
import { CATALOGUE_PRICE, CATALOGUE_PRODUCT, catalogueNeeds, type CatalogueItem, type CataloguePriceItem } from '../canonical/catalogue.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

/** Dataverse's product name and product number (ID) hold 100 characters, its description 2,000 (the product table's column lengths). */
const cut = (value: string, length: number) => (value.length > length ? `${value.slice(0, length - 1)}…` : value);
/**
 * The product number Dataverse keeps unique (and compares without case): the price key, or, when it is
 * longer than the column, its start, "~" and the first 8 hex digits of its SHA-256, so two long keys
 * sharing their first characters still get two numbers (ccs_pricekey itself holds 400).
 */
export function productNumberOf(key: string, length = 100): string {
  if (key.length <= length) return key;
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return `${key.slice(0, length - digest.length - 1)}~${digest}`;
}
/** Commerce quantities are decimals (usage, A16): two decimal places, as the currency amounts. */
const QUANTITY_DECIMALS = 2;
/** Price list item pricing method: Currency Amount (the amount is the price). */
const CURRENCY_AMOUNT = 1;

export const catalogueToDynamicsProduct: EntityMapping<CatalogueItem> = catalogueNeeds(
  canonicalMapping(CATALOGUE_PRODUCT, {
    object: 'product',
    externalIdField: 'ccs_pricekey',
    fields: {
      name: { describe: 'product name and dimension name, "<product> - <dimension>" (100 characters at most)', value: (product) => cut(product.name, 100) },
      productnumber: { describe: 'productId|dimensionKey (the product ID Dataverse keeps unique; a longer key cut to 91 characters, "~" and 8 hex digits of its SHA-256)', value: (product) => productNumberOf(product.key) },
      description: { describe: 'info.dimensions[].description (2,000 characters at most)', value: (product) => (product.description === undefined ? undefined : cut(product.description, 2000)) },
      ccs_commerceproductid: 'productId',
      ccs_dimensionkey: 'dimensionKey',
      defaultuomscheduleid: 'unitGroupId',
      defaultuomid: 'baseUnitId',
      quantitydecimal: { describe: `${QUANTITY_DECIMALS} (decimal places of quantities)`, value: () => QUANTITY_DECIMALS },
    },
  }),
  CATALOGUE_PRODUCT,
  { unitGroupId: "unit group's id (catalogueIds.unitGroupId)", baseUnitId: "base unit's id (catalogueIds.baseUnitId)" },
);

export const priceToDynamicsPriceListItem: EntityMapping<CataloguePriceItem> = catalogueNeeds(
  canonicalMapping(CATALOGUE_PRICE, {
    object: 'productpricelevel',
    externalIdField: 'ccs_priceentrykey',
    fields: {
      pricelevelid: 'priceBookId',
      productid: lookup('priceKey', 'ccs_pricekey', 'the product, by ccs_pricekey = productId|dimensionKey'),
      uomid: 'baseUnitId',
      amount: 'unitPrice',
      pricingmethodcode: { describe: `${CURRENCY_AMOUNT} (Currency Amount: the amount is the price)`, value: () => CURRENCY_AMOUNT },
    },
  }),
  CATALOGUE_PRICE,
  { priceBookId: "price list's id in this currency (catalogueIds.priceList:<ISO code>)", baseUnitId: "base unit's id (catalogueIds.baseUnitId)" },
);
