// What the catalogue's flows read (issue #28 section 1; docs/catalogue.md). The catalogue is small (a
// seller lists hundreds of products, not millions), so each run reads every product (products.query,
// paging only) and content hashes keep a quiet run from writing: no change window, no cursor. Each
// product dimension is one item (one CRM product), each of its prices in a currency the CRM org has one
// price item; the connection's crm.catalogueIds (kept by `crm-sync setup`) go with every item, so the
// mappings can name the price book, unit group, unit and price lists. A read by id (a dead letter's
// retry) parses the key, reads the product, and takes the same from the connection it is read for
// (ByIdContext), so a retried record maps as it does in a run.
import { sort, type CommerceClient, type Page } from '../commerce/index.ts';
import type { Product, ProductDimension } from '../commerce/models.ts';
import type { CrmConnector, CrmKind } from '../crm/connector.ts';
import { ReadsAgainAsOtherRecords, type ByIdContext } from './types.ts';
import { catalogueCaseTwins, KEY_SEPARATOR, priceEntryKeyOf, priceKeyOf, pricesOf, STANDARD_SUFFIX, type CatalogueItem, type CataloguePriceItem } from '../mappings/canonical/catalogue.ts';
import type { EntityMapping } from '../mappings/types.ts';
import type { ConnectionSettings } from '../sync/connection-settings.ts';

export type CatalogueRead<T> = { records: T[]; rejected: Page<any>['rejected'] };
type DueContext = {
  settings: ConnectionSettings;
  pageSize: number;
  signal?: AbortSignal;
  crm?: CrmConnector;
  mappings?: Partial<Record<string, EntityMapping<any, any>>>;
  /** Which of these price entry keys the CRM holds (record links). */
  linked?(ids: string[]): Promise<Set<string>>;
};

/**
 * Whether a price no longer offered is made inactive: Salesforce's connection price book entries
 * (IsActive). The standard price stays active (a book entry needs it, docs/catalogue.md); a Dynamics
 * price list item has no state and the sync deletes nothing.
 */
const withdrawsPrices = (kind: CrmKind, book: 'standard' | 'named') => kind === 'salesforce' && book === 'named';

/** Every product of the organization (DELETED ones too: their CRM products become inactive). */
export async function allProducts(commerce: CommerceClient, orgId: string, context: { pageSize: number; signal?: AbortSignal }): Promise<CatalogueRead<Product>> {
  const read: CatalogueRead<Product> = { records: [], rejected: [] };
  for await (const page of commerce.products.query(orgId, { s: sort({ field: 'id' }), pageSize: context.pageSize })) {
    context.signal?.throwIfAborted();
    read.records.push(...(page.records as Product[]));
    read.rejected.push(...page.rejected);
  }
  return read;
}

const catalogueIdsOf = (settings: ConnectionSettings): Record<string, string> => ('catalogueIds' in settings.crm && settings.crm.catalogueIds) || {};

const itemOf = (product: Product, dimension: ProductDimension, extra: Partial<CatalogueItem> = {}, twins?: Map<string, string>): CatalogueItem => {
  const id = priceKeyOf(product.id, dimension.key);
  const twin = twins?.get(id);
  return { id, lastUpdateTime: product.lastUpdateTime, product, dimension, ...extra, ...(twin !== undefined && { caseTwinOf: twin }) };
};

/** The price keys of these products that differ from another only in letter case (mappings/canonical/catalogue.ts catalogueCaseTwins). */
const caseTwinsOf = (products: Product[]) => catalogueCaseTwins(products.flatMap((product) => (product.info?.dimensions ?? []).map((dimension) => priceKeyOf(product.id, dimension.key))));

/**
 * What a catalogue item takes from the connection: setup's ids and, on HubSpot (which keeps a product's
 * prices on the product: `price` in the company currency, hs_price_<code> for each other currency of the
 * account; only those properties exist), the company currency and the account's other currencies.
 */
async function connectionExtras(settings: ConnectionSettings, crm: CrmConnector | undefined): Promise<Partial<CatalogueItem>> {
  const crmIds = catalogueIdsOf(settings);
  const hubspot = crm?.kind === 'hubspot' ? crm : undefined;
  const crmCurrency = await hubspot?.defaultCurrency?.();
  const crmCurrencies = hubspot ? [...(await hubspot.describe('products')).fields.keys()].flatMap((name) => (/^hs_price_[a-z]{3}$/.test(name) ? [name.slice(-3).toUpperCase()] : [])) : undefined;
  return { crmIds, ...(crmCurrency && { crmCurrency }), ...(crmCurrencies && { crmCurrencies }) };
}

/** The CRM products: one per product dimension, with the connection's ids (and HubSpot's currencies). */
export async function dueCatalogue(commerce: CommerceClient, orgId: string, context: DueContext): Promise<CatalogueRead<CatalogueItem>> {
  const read = await allProducts(commerce, orgId, context);
  const extra = await connectionExtras(context.settings, context.crm);
  const twins = caseTwinsOf(read.records);
  return { records: read.records.flatMap((product) => (product.info?.dimensions ?? []).map((dimension) => itemOf(product, dimension, extra, twins))), rejected: read.rejected };
}

/**
 * The currencies a CRM org takes prices in: Salesforce's active currencies where multi-currency is on
 * (PricebookEntry.CurrencyIsoCode's values), else its one default currency (crm/default-currency.ts);
 * Dynamics' currencies with a price list setup made (crm.catalogueIds "priceList:<ISO code>").
 */
export async function crmPriceCurrencies(kind: CrmKind, crm: CrmConnector | undefined, crmIds: Record<string, string>, object: string | undefined): Promise<string[]> {
  if (kind === 'dynamics') return Object.keys(crmIds).filter((key) => key.startsWith(PRICE_LIST_PREFIX)).map((key) => key.slice(PRICE_LIST_PREFIX.length));
  if (kind === 'salesforce' && crm && object) {
    const currency = (await crm.describe(object)).fields.get('CurrencyIsoCode');
    if (currency?.picklistValues?.length) return currency.picklistValues;
    const fallback = await crm.defaultCurrency?.();
    return fallback ? [fallback] : [];
  }
  return [];
}

export const PRICE_LIST_PREFIX = 'priceList:';

/** Which of crm.catalogueIds names the book a price goes in, per CRM kind. */
const BOOK_ID_KEY: Record<'standard' | 'named', (kind: CrmKind, currency: string) => string> = {
  standard: () => 'standardPriceBookId',
  named: (kind, currency) => (kind === 'dynamics' ? `${PRICE_LIST_PREFIX}${currency}` : 'priceBookId'),
};

/** The prices of every product dimension in the currencies the CRM org has (standard: Salesforce's standard price book). */
export function duePrices(book: 'standard' | 'named') {
  return async (commerce: CommerceClient, orgId: string, context: DueContext & { entity: string }): Promise<CatalogueRead<CataloguePriceItem>> => {
    const read = await allProducts(commerce, orgId, context);
    const crmIds = catalogueIdsOf(context.settings);
    const kind = context.settings.crm.kind;
    const currencies = new Set(await crmPriceCurrencies(kind, context.crm, crmIds, context.mappings?.[context.entity]?.object));
    const records: CataloguePriceItem[] = [];
    const twins = caseTwinsOf(read.records);
    // Entries of currencies a dimension is no longer priced in, which the CRM may still hold active.
    const unpriced: CataloguePriceItem[] = [];
    for (const product of read.records) {
      for (const dimension of product.info?.dimensions ?? []) {
        const priceKey = priceKeyOf(product.id, dimension.key);
        const priced = pricesOf(dimension);
        for (const currency of currencies) {
          const price = { ...itemOf(product, dimension, { crmIds }, twins), id: priceEntryKeyOf(priceKey, currency, book === 'standard'), priceKey, currency, bookIdKey: BOOK_ID_KEY[book](kind, currency) };
          if (currency in priced) records.push(price);
          else if (withdrawsPrices(kind, book)) unpriced.push({ ...price, withdrawn: true });
        }
      }
    }
    // Only those the CRM holds are made inactive (the others were never written).
    const held = unpriced.length && context.linked ? await context.linked(unpriced.map((price) => price.id)) : new Set<string>();
    records.push(...unpriced.filter((price) => held.has(price.id)));
    return { records, rejected: read.rejected };
  };
}

const notFound = (what: string) => Object.assign(new Error(`the commerce API has no ${what}`), { status: 404 });

/** A product dimension by its price key ("productId|dimensionKey"): the product read, its dimension found, the connection's ids and currencies with it. */
export async function catalogueItemById(commerce: CommerceClient, orgId: string, key: string, context?: ByIdContext): Promise<CatalogueItem> {
  const at = key.indexOf(KEY_SEPARATOR);
  if (at <= 0) {
    // A product the catalogue's read refused (an unreadable row) waits under its own id: read alone it is
    // refused again with its reason; once it reads, its letter closes and the next run writes its dimensions.
    const product = await commerce.products.get(orgId, key);
    throw new ReadsAgainAsOtherRecords(`product ${product.id} reads again; the next run writes its dimensions`);
  }
  const product = await commerce.products.get(orgId, key.slice(0, at));
  const dimension = (product.info?.dimensions ?? []).find((candidate) => candidate.key === key.slice(at + 1));
  if (!dimension) throw notFound(`dimension ${key.slice(at + 1)} on product ${product.id}`);
  // Read alone, a key's case twins are found among its own product's dimensions.
  return itemOf(product, dimension, context ? await connectionExtras(context.settings, context.crm) : {}, caseTwinsOf([product]));
}

/** A price by its entry key ("productId|dimensionKey|currency[|standard]"), with the connection's ids when read for one. */
export async function cataloguePriceById(commerce: CommerceClient, orgId: string, key: string, book: 'standard' | 'named', context?: ByIdContext): Promise<CataloguePriceItem> {
  // A letter under a bare product id (a product the read refused): as for its products (catalogueItemById).
  if (!key.includes(KEY_SEPARATOR)) return catalogueItemById(commerce, orgId, key, context) as never;
  const parts = key.split(KEY_SEPARATOR);
  if (book === 'standard' && parts.at(-1) === STANDARD_SUFFIX) parts.pop();
  const currency = parts.pop() ?? '';
  const priceKey = parts.join(KEY_SEPARATOR);
  const item = await catalogueItemById(commerce, orgId, priceKey, context);
  const kind = context?.settings.crm.kind ?? 'salesforce';
  // A retried entry of a currency no longer priced: what the run would do, make it inactive.
  const withdrawn = !(currency in pricesOf(item.dimension)) && withdrawsPrices(kind, book);
  return { ...item, id: key, priceKey, currency, bookIdKey: BOOK_ID_KEY[book](kind, currency), ...(withdrawn && { withdrawn }) };
}
