// The product catalogue as every CRM shows it (issue #28 section 1; docs/catalogue.md): one CRM product per
// commerce product dimension, keyed "productId|dimensionKey" (the price key), and its prices, one per
// price book (price list) and currency, keyed "<price key>|<currency>" ("...|standard" for Salesforce's
// standard price book). Computed once from the product, its dimension and the CRM ids `crm-sync setup`
// kept for the connection (crm.catalogueIds), which the catalogue's read attaches to each item
// (flows/catalogue-reads.ts); each CRM's table names its own fields (mappings/<crm>/catalogue*.ts). A
// value a CRM needs and setup did not give is the record's refusal (catalogueNeeds), never a guess.
import type { Product, ProductDimension } from '../../commerce/models.ts';
import type { EntityMapping } from '../types.ts';
import { fail } from '../types.ts';
import type { CanonicalRecord } from './record.ts';

/** Between a price key's parts: "productId|dimensionKey", "productId|dimensionKey|EUR", "...|USD|standard". */
export const KEY_SEPARATOR = '|';
export const STANDARD_SUFFIX = 'standard';

export const priceKeyOf = (productId: string, dimensionKey: string) => `${productId}${KEY_SEPARATOR}${dimensionKey}`;
export const priceEntryKeyOf = (priceKey: string, currency: string, standard: boolean) => [priceKey, currency, ...(standard ? [STANDARD_SUFFIX] : [])].join(KEY_SEPARATOR);

/** One dimension of one product, as the catalogue's read gives it: the source of a CRM product. */
export type CatalogueItem = {
  /** The price key "productId|dimensionKey". */
  id: string;
  /** The product's (a dimension has no time of its own). */
  lastUpdateTime: Product['lastUpdateTime'];
  product: Product;
  dimension: ProductDimension;
  /** The connection's crm.catalogueIds (absent on a read by id, which knows no connection). */
  crmIds?: Record<string, string>;
  /** The CRM's own currency (HubSpot's company currency: a product's `price` is in it). */
  crmCurrency?: string;
  /** The other currencies the CRM keeps a product's price in (HubSpot: those with an hs_price_<code> property). */
  crmCurrencies?: string[];
  /**
   * Another price key of the catalogue that differs from this one only in letter case, kept in its
   * place (catalogueCaseTwins): Salesforce's unique external ids and Dataverse's keys ignore case, so
   * the CRM would take the two for one record and each would overwrite the other.
   */
  caseTwinOf?: string;
};

/** One price of one dimension in one price book (price list) and currency: the source of a price entry. */
export type CataloguePriceItem = CatalogueItem & {
  /** The entry key "<price key>|<currency>[|standard]". */
  id: string;
  priceKey: string;
  currency: string;
  /** Which of crm.catalogueIds names the price book (price list) this price goes in. */
  bookIdKey: string;
  /**
   * The dimension is no longer priced in this currency, and the CRM holds its entry (Salesforce's
   * connection price book): the entry is made inactive, its price left as it was.
   */
  withdrawn?: boolean;
};

export type CanonicalCatalogueProduct = {
  key: string;
  productId: string;
  dimensionKey: string;
  name: string;
  description?: string;
  unit?: string;
  dimensionType?: string;
  /** False once the commerce product is DELETED: the CRM product is made inactive, never deleted. */
  active: boolean;
  /** The product's list price per unit by ISO currency code. */
  prices: Record<string, number>;
  /** The price in the CRM's own currency (crmCurrency), when the product has one there. */
  crmCurrencyPrice?: number;
  /** The prices in the CRM's other currencies (crmCurrencies) the product is priced in, by ISO code (HubSpot's hs_price_<code>). */
  otherCurrencyPrices: Record<string, number>;
  unitGroupId?: string;
  baseUnitId?: string;
};

export type CanonicalCataloguePrice = {
  key: string;
  priceKey: string;
  currency: string;
  /** Absent for a withdrawn price (its entry keeps the price it had). */
  unitPrice?: number;
  active: boolean;
  /** The price book (Salesforce) or price list (Dynamics) id setup kept. */
  priceBookId?: string;
  baseUnitId?: string;
};

const productName = (product: Product) => (typeof product.name === 'string' && product.name.trim() ? product.name.trim() : product.id);
const dimensionName = (dimension: ProductDimension) => (typeof dimension.name === 'string' && dimension.name.trim() ? dimension.name.trim() : dimension.key);
const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined);
const isActive = (product: Product) => product.status !== 'DELETED';

/** The refusal of a price key that differs from one kept only in letter case. */
function caseTwinRefusal(key: string, kept: string): { ok: false; reason: string } {
  return {
    ok: false,
    reason: `the price key ${JSON.stringify(key)} differs from ${JSON.stringify(kept)} only in letter case, and Salesforce's unique external ids and Dataverse's keys ignore case: the CRM would take both for one record. ${JSON.stringify(kept)} is written; this one is skipped until one of the two dimension keys changes on the commerce side`,
  };
}

/**
 * Price keys that differ only in letter case from another of the same catalogue: each to the key kept
 * in its place, the first in code point order (so every run keeps the same one).
 */
export function catalogueCaseTwins(keys: Iterable<string>): Map<string, string> {
  const kept = new Map<string, string>();
  const twins = new Map<string, string>();
  for (const key of [...new Set(keys)].sort()) {
    const folded = key.toLowerCase();
    const first = kept.get(folded);
    if (first === undefined) kept.set(folded, key);
    else twins.set(key, first);
  }
  return twins;
}

/** The dimension's prices by currency (validated numbers, commerce/models.ts). */
export function pricesOf(dimension: ProductDimension): Record<string, number> {
  return Object.fromEntries((dimension.prices ?? []).map((price) => [price.currency, price.pricePerUnit]));
}

export const CATALOGUE_PRODUCT: CanonicalRecord<CatalogueItem, unknown, CanonicalCatalogueProduct> = {
  entity: 'catalogue',
  id: (record) => record.key,
  describe: {
    key: 'productId|dimensionKey (the price key: one CRM product per product dimension)',
    productId: 'product id',
    dimensionKey: 'info.dimensions[].key',
    name: 'product name and dimension name, "<product> - <dimension>" (the product id or dimension key where a name is missing)',
    description: 'info.dimensions[].description',
    unit: 'info.dimensions[].unit',
    dimensionType: 'info.dimensions[].type (COMMIT or METERED)',
    active: 'product status: false when DELETED, else true',
    prices: 'info.dimensions[].prices: pricePerUnit by currency',
    crmCurrencyPrice: "info.dimensions[].prices: pricePerUnit in the CRM's own currency (left out when the product has no price in it)",
    otherCurrencyPrices: "info.dimensions[].prices: pricePerUnit in each of the CRM's other currencies the product is priced in",
    unitGroupId: 'the unit group setup made (crm.catalogueIds.unitGroupId)',
    baseUnitId: "the unit group's base unit (crm.catalogueIds.baseUnitId)",
  },
  compute(item) {
    if (item.caseTwinOf !== undefined) return caseTwinRefusal(item.id, item.caseTwinOf);
    const prices = pricesOf(item.dimension);
    const others = new Set((item.crmCurrencies ?? []).filter((currency) => currency !== item.crmCurrency));
    return {
      ok: true,
      value: {
        key: item.id,
        productId: item.product.id,
        dimensionKey: item.dimension.key,
        name: `${productName(item.product)} - ${dimensionName(item.dimension)}`,
        description: text(item.dimension.description),
        unit: text(item.dimension.unit),
        dimensionType: text(item.dimension.type),
        active: isActive(item.product),
        prices,
        crmCurrencyPrice: item.crmCurrency === undefined ? undefined : prices[item.crmCurrency],
        otherCurrencyPrices: Object.fromEntries(Object.entries(prices).filter(([currency]) => others.has(currency))),
        unitGroupId: item.crmIds?.unitGroupId,
        baseUnitId: item.crmIds?.baseUnitId,
      },
    };
  },
};

/**
 * `standardAlwaysActive`: Salesforce takes a custom price book entry only while the product's standard
 * price is active (docs/crm-wire-behaviour.md), so a DELETED product seen for the first time must get an
 * active standard price before its (inactive) book entry: a standard price is always active, and what
 * keeps a DELETED product off Opportunities is its inactive Product2 and its inactive book entries.
 */
function priceRecord(entity: 'catalogue-standard-price' | 'catalogue-price', book: string, standardAlwaysActive = false): CanonicalRecord<CataloguePriceItem, unknown, CanonicalCataloguePrice> {
  return {
    entity,
    id: (record) => record.key,
    describe: {
      key: `productId|dimensionKey|currency${entity === 'catalogue-standard-price' ? '|standard' : ''} (one price per ${book} and currency)`,
      priceKey: 'productId|dimensionKey: the CRM product it prices',
      currency: "the price's ISO currency code (only currencies the CRM org has)",
      unitPrice: 'info.dimensions[].prices[].pricePerUnit in that currency (left out once the currency is no longer priced)',
      active: standardAlwaysActive ? 'true (a custom price needs an active standard price)' : 'product status: false when DELETED or when the dimension is no longer priced in the currency, else true',
      priceBookId: `the ${book} setup found or made (crm.catalogueIds)`,
      baseUnitId: "the unit group's base unit (crm.catalogueIds.baseUnitId)",
    },
    compute(item) {
      if (item.caseTwinOf !== undefined) return caseTwinRefusal(item.priceKey, item.caseTwinOf);
      const unitPrice = pricesOf(item.dimension)[item.currency];
      if (item.withdrawn && unitPrice === undefined) {
        return { ok: true, value: { key: item.id, priceKey: item.priceKey, currency: item.currency, active: false, priceBookId: item.crmIds?.[item.bookIdKey], baseUnitId: item.crmIds?.baseUnitId } };
      }
      if (unitPrice === undefined) return { ok: false, reason: `product ${item.product.id} has no ${item.currency} price for its dimension ${item.dimension.key}` };
      return {
        ok: true,
        value: {
          key: item.id,
          priceKey: item.priceKey,
          currency: item.currency,
          unitPrice,
          active: standardAlwaysActive || isActive(item.product),
          priceBookId: item.crmIds?.[item.bookIdKey],
          baseUnitId: item.crmIds?.baseUnitId,
        },
      };
    },
  };
}

/** Salesforce's standard price book entries: the standard price every other price needs first. */
export const CATALOGUE_STANDARD_PRICE = priceRecord('catalogue-standard-price', 'standard price book', true);
/** The connection's price book (Salesforce) or its price list per currency (Dynamics). */
export const CATALOGUE_PRICE = priceRecord('catalogue-price', 'price book (price list)');

/**
 * A CRM mapping that needs some of the ids setup keeps (a price book, a unit group): a record without
 * them is refused with the way to get them, and waits as a dead letter the next run clears.
 */
export function catalogueNeeds<S, R, C>(
  mapping: EntityMapping<S, R>,
  canonical: CanonicalRecord<S, R, C>,
  needs: Partial<Record<keyof C & string, string>>,
): EntityMapping<S, R> {
  return {
    ...mapping,
    map(source, related) {
      const computed = canonical.compute(source, related);
      if (computed.ok) {
        // A retry reads its record with the connection too (flows/catalogue-reads.ts): missing ids are missing.
        const missing = Object.entries(needs).filter(([value]) => !computed.value[value as keyof C]).map(([, what]) => what as string);
        if (missing.length) {
          return fail(
            `the connection has no ${missing.join(' and ')} from setup: run \`crm-sync setup\` for this connection (it finds or makes them and keeps their ids), then the next sync writes this record`,
          );
        }
      }
      return mapping.map(source, related);
    },
  };
}
