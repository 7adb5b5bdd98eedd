// The sales catalogue's rules (issue #28; docs/crm-wire-behaviour.md, Dynamics "Products and line
// items"), with Dataverse's own error codes and messages (the SDK's ErrorCodes: ProductInvalidUnit
// 0x80043b14, UnitNotInSchedule 0x80043b16, DuplicateProductPriceLevel 0x80043b08, ...):
// - a unit group is made with its base unit (baseuomname); a unit belongs to a group and to a base unit of it;
// - a product names its unit group and a default unit of that group, its decimals supported and a product
//   number no other product has; it starts Draft (statecode 2) unless the organisation creates products
//   without a family Active (start option productsCreatedActive, Organization.CreateProductsWithoutParentInActiveState);
//   a PATCH of statecode/statuscode moves it (publish: 0/1);
// - a price list has a unique name and a currency (the base currency when none is bound);
// - a price list item prices one product in one unit of its group, once per price list; the first one
//   becomes the product's default price list;
// - an opportunity product is a catalogue product in a unit of its group, or a write-in product
//   (productdescription, never both); its price per unit comes from the opportunity's price list unless
//   overridden (ispriceoverridden), and a line Dataverse cannot price is saved with its pricingerrorcode;
//   baseamount and extendedamount are Dataverse's to calculate.
import { randomUUID } from 'node:crypto';
import { DataverseError, payloadError } from './errors.ts';
import type { EntityDef } from './schema.ts';
import type { SandboxState } from './state.ts';
import type { Lookup, Row } from './store.ts';
import { createRow, updateRow } from './writes.ts';
import { requirePrivilege } from './privileges.ts';

const CATALOGUE = new Set(['uomschedule', 'uom', 'product', 'pricelevel', 'productpricelevel', 'opportunityproduct']);
/** The tables whose rows take a transaction currency bind: the catalogue's, and the opportunity (its own currency). */
const CURRENCY_BOUND = new Set([...CATALOGUE, 'opportunity']);

const refused = (code: string, message: string) => new DataverseError(400, code, message);
const id = (value: unknown) => (value && typeof value === 'object' ? (value as Lookup).id : undefined);
const lookup = (table: string, rowId: string): Lookup => ({ id: rowId, table });
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Product states and their status reasons: Active 0 (1), Retired 1 (2), Draft 2 (0), Under Revision 3 (3). */
const PRODUCT_STATUS: Record<number, number> = { 0: 1, 1: 2, 2: 0, 3: 3 };
const [ACTIVE, DRAFT, UNDER_REVISION] = [0, 2, 3];
/** productstructure: 1 product, 2 product family, 3 bundle. */
const FAMILY = 2;
/** The pricing errors the sandbox sets on an opportunity product (the PricingErrorCode choices). */
export const PRICING_ERROR = { none: 0, missingPriceLevel: 2, missingQuantity: 4, productNotInPriceLevel: 11 } as const;

/**
 * `transactioncurrencyid@odata.bind` names a currency (currencies.ts serves them, not as rows): taken out
 * of the body here and returned as the column, checked to exist (404 as for any bind).
 */
export function takeCurrencyBind(state: SandboxState, entity: EntityDef, body: Record<string, unknown>): { body: Record<string, unknown>; columns: Row } {
  const name = 'transactioncurrencyid@odata.bind';
  if (!CURRENCY_BOUND.has(entity.LogicalName) || !(name in body)) return { body, columns: {} };
  const { [name]: bind, ...rest } = body;
  if (bind === null) return { body: rest, columns: { transactioncurrencyid: null } };
  const match = typeof bind === 'string' ? /transactioncurrencies\(([0-9a-fA-F-]{36})\)$/.exec(bind) : null;
  if (!match) throw payloadError(entity.EntitySetName, `The reference '${String(bind)}' in '${name}' is not a valid entity reference.`);
  const currency = state.currencies.byId(match[1]!);
  if (!currency) throw new DataverseError(404, '0x80040217', `transactioncurrency With Id = ${match[1]!.toLowerCase()} Does Not Exist`);
  return { body: rest, columns: { transactioncurrencyid: lookup('transactioncurrency', currency.transactioncurrencyid) } };
}

/** The columns a create (no `existing`) or update writes, checked and completed as Dataverse does. */
export function catalogueColumns(state: SandboxState, entity: EntityDef, columns: Row, existing: Row | undefined): Row {
  if (entity.LogicalName === 'opportunity') return opportunityCurrencyColumns(state, columns, existing);
  if (!CATALOGUE.has(entity.LogicalName)) return columns;
  const merged: Row = { ...(existing ?? {}), ...columns };
  const given = (column: string) => merged[column] !== null && merged[column] !== undefined;
  switch (entity.LogicalName) {
    case 'uomschedule':
      if (!existing && !given('baseuomname')) throw refused('0x80043810', 'baseuomname not specified');
      return columns;
    case 'uom':
      return unitColumns(state, columns, merged, existing);
    case 'product':
      return productColumns(state, columns, merged, existing);
    case 'pricelevel':
      return priceListColumns(state, columns, merged, existing);
    case 'productpricelevel':
      return priceListItemColumns(state, columns, merged, existing);
    default:
      return opportunityProductColumns(state, columns, merged);
  }
}

function unitColumns(state: SandboxState, columns: Row, merged: Row, existing: Row | undefined): Row {
  if (!merged.uomscheduleid) throw refused('0x80043b0a', 'The unit schedule id is missing.');
  if (!merged.name) throw refused('0x80043b26', 'The unit name cannot be null.');
  if (existing?.isschedulebaseuom) return columns;
  const base = id(merged.baseuom) ? state.store.get('uom', id(merged.baseuom)!) : undefined;
  if (!base) throw refused('0x80043b1c', 'The base unit does not exist.');
  if (id(base.uomscheduleid) !== id(merged.uomscheduleid)) throw refused('0x80043b0b', 'The base unit does not belong to the schedule.');
  return existing ? columns : { quantity: 1, ...columns, isschedulebaseuom: false };
}

function checkUnitOfGroup(state: SandboxState, unitId: string | undefined, groupId: string | undefined, code: string, message: string) {
  const unit = unitId ? state.store.get('uom', unitId) : undefined;
  if (!unit || id(unit.uomscheduleid) !== groupId) throw refused(code, message);
}

function productColumns(state: SandboxState, columns: Row, merged: Row, existing: Row | undefined): Row {
  if (!merged.productnumber) throw refused('0x80043b05', 'The product number can not be null.');
  const number = String(merged.productnumber).toLowerCase();
  const selfId = existing?.productid;
  if (state.store.candidates('product', 'productnumber', merged.productnumber).some((row) => row.productid !== selfId && String(row.productnumber).toLowerCase() === number)) {
    throw refused('0x80043b06', 'The specified product ID conflicts with the product ID of an existing record. Specify a different product ID and try again.');
  }
  // "A product or bundle record can't have child records": only a family is a parent [doc]; the code is [inf].
  const parent = id(merged.parentproductid) ? state.store.get('product', id(merged.parentproductid)!) : undefined;
  if (parent && parent.productstructure !== FAMILY) throw refused('0x80040203', 'The parent of a product must be a product family: a product or bundle cannot have child records.');
  // A family groups products and sells nothing itself: no unit group of its own [inf].
  if ((merged.productstructure ?? 1) !== FAMILY) {
    if (!merged.defaultuomscheduleid) throw refused('0x80043b13', 'The unit schedule id of the product is missing.');
    if (!merged.defaultuomid) throw refused('0x80043b0d', 'The unit id is missing.');
    checkUnitOfGroup(state, id(merged.defaultuomid), id(merged.defaultuomscheduleid), '0x80043b16', 'The unit does not exist in the specified unit schedule.');
    if (merged.quantitydecimal === null || merged.quantitydecimal === undefined) throw refused('0x80043afc', 'The quantity decimal code is invalid.');
  }
  if (!existing) {
    // A product without a family starts Active only where the organisation says so; else Draft.
    const active = state.catalogue.productsCreatedActive && !merged.parentproductid;
    return { productstructure: 1, ...columns, statecode: active ? ACTIVE : DRAFT, statuscode: PRODUCT_STATUS[active ? ACTIVE : DRAFT] };
  }
  if (typeof columns.statecode === 'number' || typeof columns.statuscode === 'number') {
    const stateCode = typeof columns.statecode === 'number' ? columns.statecode : (existing.statecode as number);
    const status = typeof columns.statuscode === 'number' ? columns.statuscode : PRODUCT_STATUS[stateCode];
    if (PRODUCT_STATUS[stateCode] !== status) throw refused('0x80040203', `${String(status)} is not a valid status code for state code ProductState.${['Active', 'Retired', 'Draft', 'UnderRevision'][stateCode]} on product.`);
    // "Child ... records of a product family record can be published only if the parent product family record is published" [doc].
    if (stateCode === ACTIVE && existing.statecode !== ACTIVE && parent && parent.statecode !== ACTIVE) {
      throw refused('0x80040203', 'This product cannot be published before its product family: publish the family first (PublishProductHierarchy).');
    }
    return { ...columns, statecode: stateCode, statuscode: status };
  }
  return columns;
}

/**
 * PublishProductHierarchy (bound to a product family): the family and every product, bundle and family
 * under it go from Draft (or Under Revision) to Active. "You can use this message only on a product family
 * record" [doc]; on another product it is refused here with 0x80040203 [inf].
 */
export function publishProductHierarchy(state: SandboxState, familyId: string): void {
  const products = state.store.entity('product')!;
  requirePrivilege(state, products, 'Write');
  const family = state.store.get('product', familyId.toLowerCase());
  if (!family) throw new DataverseError(404, '0x80040217', `product With Id = ${familyId.toLowerCase()} Does Not Exist`);
  if (family.productstructure !== FAMILY) throw refused('0x80040203', 'PublishProductHierarchy can be used only on a product family record.');
  state.store.transaction(() => {
    const publish = (row: Row) => {
      if (row.statecode === DRAFT || row.statecode === UNDER_REVISION) updateRow(state, products, row, { statecode: ACTIVE, statuscode: PRODUCT_STATUS[ACTIVE] });
      if (row.productstructure !== FAMILY) return;
      for (const child of state.store.candidates('product', 'parentproductid', lookup('product', String(row.productid)))) {
        if (id(child.parentproductid) === row.productid) publish(child);
      }
    };
    publish(family);
  });
}

/** Deleting a unit group's base unit is refused (BaseUnitNotDeletable) [doc: error code]. */
export function beforeCatalogueDelete(entity: EntityDef, row: Row): void {
  if (entity.LogicalName === 'uom' && row.isschedulebaseuom === true) throw refused('0x80043b03', 'The base unit of a schedule cannot be deleted.');
}

function priceListColumns(state: SandboxState, columns: Row, merged: Row, existing: Row | undefined): Row {
  if (!merged.name) throw refused('0x80043b0e', 'The name can not be null.');
  const name = String(merged.name).toLowerCase();
  if (state.store.candidates('pricelevel', 'name', merged.name).some((row) => row.pricelevelid !== existing?.pricelevelid && String(row.name).toLowerCase() === name)) {
    throw refused('0x80043b0f', 'The name already exists.');
  }
  if (existing || merged.transactioncurrencyid) return columns;
  return { ...columns, transactioncurrencyid: lookup('transactioncurrency', state.currencies.base().transactioncurrencyid) };
}

function priceListItemColumns(state: SandboxState, columns: Row, merged: Row, existing: Row | undefined): Row {
  if (!merged.pricelevelid) throw refused('0x80043b12', 'The price level id is missing.');
  if (!merged.productid) throw refused('0x80043b11', 'The product id is missing.');
  if (!merged.uomid) throw refused('0x80043b0d', 'The unit id is missing.');
  const product = state.store.get('product', id(merged.productid)!)!;
  checkUnitOfGroup(state, id(merged.uomid), id(product.defaultuomscheduleid), '0x80043b14', 'The specified unit is not valid for this product.');
  const same = (row: Row) => row.productpricelevelid !== existing?.productpricelevelid && id(row.pricelevelid) === id(merged.pricelevelid) && id(row.uomid) === id(merged.uomid);
  if (state.store.candidates('productpricelevel', 'productid', merged.productid).some(same)) throw refused('0x80043b08', 'This product and unit combination has a price for this price list.');
  const priceList = state.store.get('pricelevel', id(merged.pricelevelid)!)!;
  return {
    pricingmethodcode: 1,
    quantitysellingcode: 1,
    ...columns,
    productidname: product.name,
    uomscheduleid: product.defaultuomscheduleid,
    transactioncurrencyid: priceList.transactioncurrencyid,
  };
}

/** The price list item pricing `product` in `unit` on `priceList`, if any. */
const priceListItem = (state: SandboxState, priceList: string, product: string, unit: string) =>
  state.store.candidates('productpricelevel', 'productid', lookup('product', product)).find((row) => id(row.pricelevelid) === priceList && id(row.uomid) === unit);

function opportunityProductColumns(state: SandboxState, columns: Row, merged: Row): Row {
  if (!merged.opportunityid) throw refused('0x80043b15', 'The opportunity id is missing or invalid.');
  const writeIn = merged.productdescription !== null && merged.productdescription !== undefined && merged.productdescription !== '';
  if (writeIn && merged.productid) throw refused('0x80043afb', "You cannot set both 'productid' and 'productdescription' for the same record.");
  if (writeIn && merged.uomid) throw refused('0x80043afa', "You cannot set both 'uomid' and 'productdescription' for the same record.");
  if (!writeIn && !merged.productid) throw refused('0x80043b11', 'The product id is missing.');
  let pricePerUnit = typeof merged.priceperunit === 'number' ? merged.priceperunit : 0;
  let pricingError: number = PRICING_ERROR.none;
  if (!writeIn) {
    if (!merged.uomid) throw refused('0x80043b0d', 'The unit id is missing.');
    const product = state.store.get('product', id(merged.productid)!)!;
    checkUnitOfGroup(state, id(merged.uomid), id(product.defaultuomscheduleid), '0x80043b14', 'The specified unit is not valid for this product.');
    if (merged.ispriceoverridden !== true) {
      // Priced from the opportunity's price list; a line it cannot price is saved with the reason [inf].
      const opportunity = state.store.get('opportunity', id(merged.opportunityid)!);
      const priceList = id(opportunity?.pricelevelid);
      const item = priceList ? priceListItem(state, priceList, id(merged.productid)!, id(merged.uomid)!) : undefined;
      pricePerUnit = typeof item?.amount === 'number' ? item.amount : 0;
      if (!priceList) pricingError = PRICING_ERROR.missingPriceLevel;
      else if (!item) pricingError = PRICING_ERROR.productNotInPriceLevel;
    }
  }
  const quantity = typeof merged.quantity === 'number' ? merged.quantity : undefined;
  if (quantity === undefined && pricingError === PRICING_ERROR.none) pricingError = PRICING_ERROR.missingQuantity;
  const base = round2(pricePerUnit * (quantity ?? 0));
  const discount = typeof merged.manualdiscountamount === 'number' ? merged.manualdiscountamount : 0;
  return {
    ...columns,
    isproductoverridden: writeIn,
    ispriceoverridden: merged.ispriceoverridden === true,
    priceperunit: pricePerUnit,
    baseamount: base,
    extendedamount: round2(base - discount),
    pricingerrorcode: pricingError,
  };
}

/**
 * [sandbox] The exchange rates the organisation's administrator set on its currencies, as units of each
 * currency per US dollar (fixed, illustrative): a currency's exchange rate is its units per one unit of the
 * base currency ("The exchange rate is the value of a transaction currency equal to one base currency"), so
 * the base currency's is 1. A currency missing here counts as worth a dollar.
 */
const UNITS_PER_US_DOLLAR: Record<string, number> = { USD: 1, EUR: 0.9, GBP: 0.8, JPY: 150, CHF: 0.9, SEK: 10 };
const round12 = (n: number) => Math.round(n * 1e12) / 1e12;

/** The exchange rate of a currency (by its GUID) against the organisation's base currency. */
export function exchangeRateOf(state: SandboxState, currencyId: string): number {
  const base = state.currencies.base();
  if (base.transactioncurrencyid === currencyId) return 1;
  const code = state.currencies.byId(currencyId)?.isocurrencycode ?? base.isocurrencycode;
  return round12((UNITS_PER_US_DOLLAR[code] ?? 1) / (UNITS_PER_US_DOLLAR[base.isocurrencycode] ?? 1));
}

/** The opportunity's money columns: with any of them set, its currency cannot be cleared. */
const OPPORTUNITY_MONEY = ['estimatedvalue', 'actualvalue'];
const CURRENCY_CHANGE_REFUSED = 'The currency cannot be changed because the opportunity has opportunity products, quotes, orders, or invoices associated with it. Remove the associated records and then change the currency.';

/**
 * An opportunity's own currency, as Dataverse keeps it (docs/crm-wire-behaviour.md, Dynamics "the
 * opportunity's transaction currency"): bound by `transactioncurrencyid` on create or update, with its
 * exchange rate (read-only) set from the currency; not changed once the opportunity has opportunity
 * products; not cleared while a money column holds a value (CurrencyCannotBeNullDueToNonNullMoneyFields);
 * and, with a price list, the price list's currency (RecordAndPricelistCurrencyNotEqual). An opportunity
 * created without one keeps none (its amounts are then in the base currency).
 */
function opportunityCurrencyColumns(state: SandboxState, columns: Row, existing: Row | undefined): Row {
  const merged: Row = { ...(existing ?? {}), ...columns };
  const currency = id(merged.transactioncurrencyid);
  if ('transactioncurrencyid' in columns) {
    const before = id(existing?.transactioncurrencyid);
    if (existing && before !== currency) {
      const products = state.store.candidates('opportunityproduct', 'opportunityid', lookup('opportunity', String(existing.opportunityid)));
      if (products.some((row) => id(row.opportunityid) === existing.opportunityid)) throw refused('0x80040203', CURRENCY_CHANGE_REFUSED);
    }
    if (!currency && OPPORTUNITY_MONEY.some((column) => merged[column] !== null && merged[column] !== undefined)) throw refused('0x80048cfb', 'The currency cannot be null.');
  }
  const priceList = id(merged.pricelevelid) ? state.store.get('pricelevel', id(merged.pricelevelid)!) : undefined;
  if (currency && priceList && id(priceList.transactioncurrencyid) !== currency && ('transactioncurrencyid' in columns || 'pricelevelid' in columns)) {
    throw refused('0x80048cf6', 'The currency of the record does not match the currency of the price list.');
  }
  if (!('transactioncurrencyid' in columns)) return columns;
  return { ...columns, exchangerate: currency ? exchangeRateOf(state, currency) : null };
}

/** What a write sets off: a unit group's base unit; a product's default price list from its first price. */
export function afterCatalogueWrite(state: SandboxState, entity: EntityDef, row: Row, created: boolean): void {
  if (!created) return;
  if (entity.LogicalName === 'uomschedule') {
    const uom = state.store.entity('uom')!;
    const group = lookup('uomschedule', String(row.uomscheduleid));
    createRow(state, uom, { uomid: randomUUID(), name: row.baseuomname, uomscheduleid: group, baseuom: null, quantity: 1, isschedulebaseuom: true });
  }
  if (entity.LogicalName === 'productpricelevel') {
    const product = state.store.get('product', id(row.productid)!);
    if (product && !product.pricelevelid) updateRow(state, state.store.entity('product')!, product, { pricelevelid: row.pricelevelid });
  }
}

/** The catalogue's organisation settings (start options). */
export type CatalogueSettings = { productsCreatedActive: boolean };
