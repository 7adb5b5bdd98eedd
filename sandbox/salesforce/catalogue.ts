// Salesforce's rules between products, price books, price book entries and opportunity products, and
// the values it derives from them: checked in every save (writes.ts, so REST, sObject Collections and
// Bulk API 2.0 alike) before the field rules, and applied after the records are stored. Sources: the
// wire doc's "Products, price books and opportunity products" ([doc] object reference, [issue]/[code]
// the refusals clients report, [inf] inferred).
import type { RecordError } from './errors.ts';
import { canonicalId } from './ids.ts';
import { findObject, type SandboxObject } from './schema.ts';
import type { Store, StoredRecord } from './store.ts';
import { roundToScale } from './values.ts';

/**
 * The org's one standard price book, present from the start (as in every org). Its id is not of the
 * form this sandbox issues (ids.ts: prefix, "Sb", a counter), so no record made later can get it.
 */
export const STANDARD_PRICEBOOK_ID = canonicalId('01s000000000001')!;
export const STANDARD_PRICEBOOK_NAME = 'Standard Price Book';

const integrity = (message: string, fields: string[] = []): RecordError => ({ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message, fields });

/** Salesforce's refusals, in its words. */
export const catalogueErrors = {
  /** [code: STANDARD_PRICE_NOT_DEFINED as several clients log it] */
  standardPriceNotDefined: (): RecordError => ({ statusCode: 'STANDARD_PRICE_NOT_DEFINED', message: 'Before creating a custom price, create a standard price.', fields: [] }),
  /** [code: Data Loader results and Apex logs give FIELD_INTEGRITY_EXCEPTION; one Apex report DUPLICATE_VALUE] */
  duplicatePrice: (): RecordError => integrity('This price definition already exists in this price book'),
  /** A list price given with UseStandardPrice [pages: the message Salesforce gives, without fields]. */
  priceWithStandardPrice: (): RecordError => integrity('field integrity exception'),
  /** The standard price book's entries are the standard prices: they cannot use one [doc; message inf]. */
  standardEntryUsesStandardPrice: (): RecordError => integrity('field integrity exception: UseStandardPrice (a standard price book entry cannot use the standard price)', ['UseStandardPrice']),
  listPriceMissing: (): RecordError => ({ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [UnitPrice]', fields: ['UnitPrice'] }),
  /** [pages: Salesforce Help 000383141, the text it still gives] */
  entryMissing: (): RecordError => integrity('field integrity exception: PricebookEntryId, unknown (versions 3.0 and higher must specify pricebook entry id; others must specify product id)', ['PricebookEntryId', 'unknown']),
  /** [inf: worded as the other PricebookEntryId refusals] */
  entryInactive: (): RecordError => integrity('field integrity exception: PricebookEntryId (pricebook entry is inactive)', ['PricebookEntryId']),
  /** [issue: forcedotcom/SFDX-Data-Move-Utility#704] */
  otherPricebook: (): RecordError => integrity('field integrity exception: PricebookEntryId (pricebook entry is in a different pricebook than the one assigned to the opportunity)', ['PricebookEntryId']),
  /** [code: the text clients match] */
  currencyMismatch: (): RecordError => integrity('field integrity exception: PricebookEntryId (pricebook entry currency code does not match opportunity currency code)', ['PricebookEntryId']),
  /** [code: reported on inserts that set both] */
  bothPrices: (): RecordError => integrity('field integrity exception: only one of unit price or total price may be specified', ['TotalPrice']),
  /** [pages: an update setting both] */
  bothPricesOnUpdate: (): RecordError => ({ statusCode: 'INVALID_FIELD', message: "Cannot change both 'UnitPrice' and 'TotalPrice' in update call", fields: ['UnitPrice'] }),
  /** Neither price [doc: "UnitPrice or TotalPrice is required"; code and text inf]. */
  noPrice: (): RecordError => ({ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [UnitPrice]', fields: ['UnitPrice'] }),
  /** [inf] a total cannot be spread over no quantity */
  zeroQuantity: (): RecordError => integrity('field integrity exception: Quantity (quantity must be nonzero)', ['Quantity']),
  /** [doc: "The API rejects any attempt" to change these on an Opportunity with line items; code and text inf] */
  lockedByLineItems: (field: 'Pricebook2Id' | 'CurrencyIsoCode'): RecordError =>
    integrity(`field integrity exception: ${field} (cannot be changed on an opportunity that has line items)`, [field]),
};

/** What earlier records of one call settled, so two records of a call cannot contradict each other. */
export type CatalogueCall = { pricebookOf: Map<string, string>; prices: Set<string> };
export const newCatalogueCall = (): CatalogueCall => ({ pricebookOf: new Map(), prices: new Set() });

const blank = (value: unknown) => value === null || value === undefined || value === '';
const tableOf = (store: Store, name: string) => store.table(findObject(name)!);
const liveRecord = (store: Store, name: string, id: unknown): StoredRecord | undefined => {
  const canonical = canonicalId(id);
  const record = canonical ? tableOf(store, name).get(canonical) : undefined;
  return record && !record.IsDeleted ? record : undefined;
};
const liveWhere = (store: Store, name: string, test: (record: StoredRecord) => boolean) => [...tableOf(store, name).all()].filter((r) => !r.IsDeleted && test(r));
const hasCurrency = (object: SandboxObject) => object.fields.some((f) => f.name === 'CurrencyIsoCode');
const priceKey = (pricebookId: string, productId: string, currency: unknown) => `${pricebookId}|${productId}|${String(currency ?? '')}`;
const lineItemsOf = (store: Store, opportunityId: string) => liveWhere(store, 'OpportunityLineItem', (r) => r.OpportunityId === opportunityId);

/** The standard price of a product in a currency: its entry in the standard price book. */
function standardEntry(store: Store, productId: string, currency: unknown): StoredRecord | undefined {
  return liveWhere(store, 'PricebookEntry', (r) => r.Pricebook2Id === STANDARD_PRICEBOOK_ID && r.Product2Id === productId && (currency === undefined || r.CurrencyIsoCode === currency))[0];
}

function pricebookEntryRules(store: Store, object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>, call: CatalogueCall): RecordError[] {
  const productId = existing ? String(existing.Product2Id) : canonicalId(changes.Product2Id);
  const pricebookId = existing ? String(existing.Pricebook2Id) : canonicalId(changes.Pricebook2Id);
  const product = liveRecord(store, 'Product2', productId);
  const pricebook = liveRecord(store, 'Pricebook2', pricebookId);
  // A reference that names nothing is the field rules' refusal (validation.ts).
  if (!product || !pricebook) return [];
  const currency = hasCurrency(object) ? (existing ? existing.CurrencyIsoCode : (changes.CurrencyIsoCode ?? object.fields.find((f) => f.name === 'CurrencyIsoCode')!.defaultValue)) : undefined;
  const useStandard = 'UseStandardPrice' in changes ? changes.UseStandardPrice === true : existing?.UseStandardPrice === true;
  const isStandardBook = pricebook.IsStandard === true;

  if (isStandardBook && useStandard) return [catalogueErrors.standardEntryUsesStandardPrice()];
  const standard = isStandardBook ? undefined : standardEntry(store, product.Id, currency);
  // The standard price must be there and active: "You cannot add a product to a custom price book until it
  // has an active entry in the standard price book first" [pages: salesforcedictionary.com, wire doc].
  if (!existing && !isStandardBook && standard?.IsActive !== true) return [catalogueErrors.standardPriceNotDefined()];
  if (useStandard) {
    if ('UnitPrice' in changes && !blank(changes.UnitPrice)) return [catalogueErrors.priceWithStandardPrice()];
    changes.UnitPrice = standard?.UnitPrice ?? null;
  } else if (existing ? 'UnitPrice' in changes && blank(changes.UnitPrice) : blank(changes.UnitPrice)) {
    return [catalogueErrors.listPriceMissing()];
  }
  if (!existing) {
    const key = priceKey(pricebook.Id, product.Id, currency);
    const taken = liveWhere(store, 'PricebookEntry', (r) => r.Pricebook2Id === pricebook.Id && r.Product2Id === product.Id && (currency === undefined || r.CurrencyIsoCode === currency));
    if (taken.length > 0 || call.prices.has(key)) return [catalogueErrors.duplicatePrice()];
    call.prices.add(key);
    changes.Name = product.Name;
    changes.ProductCode = product.ProductCode ?? null;
  }
  return [];
}

function lineItemRules(store: Store, object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>, call: CatalogueCall): RecordError[] {
  const hasUnit = 'UnitPrice' in changes && !blank(changes.UnitPrice);
  const hasTotal = 'TotalPrice' in changes && !blank(changes.TotalPrice);
  if (existing) {
    if (hasUnit && hasTotal) return [catalogueErrors.bothPricesOnUpdate()];
    const quantity = 'Quantity' in changes ? changes.Quantity : existing.Quantity;
    if (blank(quantity)) return []; // cleared: the field rules refuse it (required)
    if (Number(quantity) === 0) return [catalogueErrors.zeroQuantity()];
    if (hasTotal) changes.UnitPrice = roundToScale(Number(changes.TotalPrice) / Number(quantity), 2);
    else {
      const unit = 'UnitPrice' in changes ? changes.UnitPrice : existing.UnitPrice;
      if (blank(unit)) return [catalogueErrors.noPrice()];
      changes.TotalPrice = roundToScale(Number(quantity) * Number(unit), 2);
    }
    return [];
  }

  if (blank(changes.PricebookEntryId)) return [catalogueErrors.entryMissing()];
  const entry = liveRecord(store, 'PricebookEntry', changes.PricebookEntryId);
  const opportunity = liveRecord(store, 'Opportunity', changes.OpportunityId);
  if (!entry || !opportunity) return []; // the field rules name the reference
  if (entry.IsActive !== true) return [catalogueErrors.entryInactive()];
  const pricebook = liveRecord(store, 'Pricebook2', entry.Pricebook2Id);
  const assigned = canonicalId(opportunity.Pricebook2Id) ?? call.pricebookOf.get(opportunity.Id);
  if (assigned && assigned !== entry.Pricebook2Id) return [catalogueErrors.otherPricebook()];
  // An Opportunity without a price book takes the entry's, when that price book is active [doc].
  if (!assigned && pricebook?.IsActive !== true) return [catalogueErrors.entryInactive()];
  if (hasCurrency(object) && opportunity.CurrencyIsoCode !== entry.CurrencyIsoCode) return [catalogueErrors.currencyMismatch()];
  if (hasUnit && hasTotal) return [catalogueErrors.bothPrices()];
  if (!hasUnit && !hasTotal) return [catalogueErrors.noPrice()];
  if (blank(changes.Quantity)) return []; // the field rules: Quantity is required
  const quantity = Number(changes.Quantity);
  if (quantity === 0) return [catalogueErrors.zeroQuantity()];
  if (hasTotal) changes.UnitPrice = roundToScale(Number(changes.TotalPrice) / quantity, 2);
  else changes.TotalPrice = roundToScale(quantity * Number(changes.UnitPrice), 2);

  call.pricebookOf.set(opportunity.Id, entry.Pricebook2Id as string);
  const product = liveRecord(store, 'Product2', entry.Product2Id);
  changes.Product2Id = entry.Product2Id;
  changes.ProductCode = entry.ProductCode ?? null;
  changes.ListPrice = entry.UnitPrice ?? null;
  changes.Name = `${String(opportunity.Name)} ${String(product?.Name ?? entry.Name ?? '')}`.trim();
  if (hasCurrency(object)) changes.CurrencyIsoCode = opportunity.CurrencyIsoCode;
  return [];
}

function opportunityRules(store: Store, existing: StoredRecord | undefined, changes: Record<string, unknown>): RecordError[] {
  if (!existing || lineItemsOf(store, existing.Id).length === 0) return [];
  if ('Pricebook2Id' in changes && canonicalId(changes.Pricebook2Id) !== canonicalId(existing.Pricebook2Id)) return [catalogueErrors.lockedByLineItems('Pricebook2Id')];
  if ('CurrencyIsoCode' in changes && changes.CurrencyIsoCode !== existing.CurrencyIsoCode) return [catalogueErrors.lockedByLineItems('CurrencyIsoCode')];
  // Amount is the line items' sum while there are any: an update of it is ignored, not refused [doc].
  delete changes.Amount;
  return [];
}

/**
 * The catalogue's refusals for saving `changes` onto `existing` (a create when undefined), adding to
 * `changes` what Salesforce derives (entry and line item names, list and total prices, the line item's
 * product and currency). Empty for objects outside the catalogue.
 */
export function catalogueRules(store: Store, object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>, call: CatalogueCall): RecordError[] {
  switch (object.name) {
    case 'PricebookEntry':
      return pricebookEntryRules(store, object, existing, changes, call);
    case 'OpportunityLineItem':
      return lineItemRules(store, object, existing, changes, call);
    case 'Opportunity':
      return opportunityRules(store, existing, changes);
    default:
      return [];
  }
}

/** One stored save, as writes.ts applied it. */
export type AppliedSave = { object: SandboxObject; id: string; existing: StoredRecord | undefined; changes: Record<string, unknown>; delete: boolean };

/**
 * What follows from stored saves: an Opportunity's Amount is the sum of its line items' totals (and its
 * price book the first line item's), a product's name and code show on its entries and line items, and
 * entries that use the standard price follow it. Each touched record's stamps move, as any save's.
 */
export function afterCatalogueSaves(store: Store, stamp: string, applied: AppliedSave[]) {
  const stamps = { LastModifiedDate: stamp, SystemModstamp: stamp };
  const opportunities = new Set<string>();
  for (const save of applied) {
    const record = store.table(save.object).get(save.id);
    if (!record) continue;
    if (save.object.name === 'OpportunityLineItem') opportunities.add(String(record.OpportunityId));
    if (save.object.name === 'Product2' && save.existing && ('Name' in save.changes || 'ProductCode' in save.changes)) {
      for (const entry of liveWhere(store, 'PricebookEntry', (r) => r.Product2Id === record.Id)) {
        tableOf(store, 'PricebookEntry').update(entry.Id, { Name: record.Name, ProductCode: record.ProductCode ?? null, ...stamps });
      }
      for (const line of liveWhere(store, 'OpportunityLineItem', (r) => r.Product2Id === record.Id)) {
        const opportunity = tableOf(store, 'Opportunity').get(String(line.OpportunityId));
        tableOf(store, 'OpportunityLineItem').update(line.Id, { Name: `${String(opportunity?.Name ?? '')} ${String(record.Name)}`.trim(), ProductCode: record.ProductCode ?? null, ...stamps });
      }
    }
    if (save.object.name === 'PricebookEntry' && record.Pricebook2Id === STANDARD_PRICEBOOK_ID && 'UnitPrice' in save.changes) {
      const following = liveWhere(store, 'PricebookEntry', (r) => r.UseStandardPrice === true && r.Product2Id === record.Product2Id && r.CurrencyIsoCode === record.CurrencyIsoCode);
      for (const entry of following) tableOf(store, 'PricebookEntry').update(entry.Id, { UnitPrice: record.UnitPrice, ...stamps });
    }
  }
  for (const opportunityId of opportunities) {
    const opportunity = tableOf(store, 'Opportunity').get(opportunityId);
    if (!opportunity) continue;
    const lines = lineItemsOf(store, opportunityId);
    // The sum of the totals; the last line item deleted leaves 0 [doc: each one "decrements" the Amount].
    const amount = roundToScale(lines.reduce((sum, line) => sum + Number(line.TotalPrice ?? 0), 0), 2);
    const pricebook = opportunity.Pricebook2Id ?? (lines[0]?.PricebookEntryId ? tableOf(store, 'PricebookEntry').get(String(lines[0].PricebookEntryId))?.Pricebook2Id : null) ?? null;
    tableOf(store, 'Opportunity').update(opportunityId, { Amount: amount, Pricebook2Id: pricebook, ...stamps });
  }
}

/** Every org has its standard price book (active, as a new org's is): put back after a reset. */
export function seedStandardPricebook(store: Store) {
  const table = tableOf(store, 'Pricebook2');
  if (table.get(STANDARD_PRICEBOOK_ID)) return;
  const stamp = new Date(0).toISOString().replace('Z', '+0000');
  table.insert({ Id: STANDARD_PRICEBOOK_ID, IsDeleted: false, Name: STANDARD_PRICEBOOK_NAME, Description: null, IsActive: true, IsStandard: true, CreatedDate: stamp, LastModifiedDate: stamp, SystemModstamp: stamp });
}
