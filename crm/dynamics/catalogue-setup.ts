// `crm-sync setup` for Dynamics' product catalogue (issue #28): what Dataverse requires before a product
// can be priced (docs/crm-wire-behaviour.md, Dynamics "Products and line items"):
// - on `product`, the columns that tie it to one commerce product dimension (ccs_commerceproductid,
//   ccs_dimensionkey, ccs_pricekey = "productId|dimensionKey") and an alternate key on ccs_pricekey, so the
//   sync upserts products by it;
// - on `productpricelevel` (a price list item: one product's price in one price list), ccs_priceentrykey =
//   "productId|dimensionKey|currency" with an alternate key, so the sync upserts prices by it (one price list
//   per currency, and one item per product and unit in a price list: the key names exactly one item);
// - a unit group "Marketplace units" with its base unit "Unit" (every product names a unit group and a
//   default unit of it);
// - a price list per currency the connection sells in, named from the connection's price book
//   ("<priceBook> (<ISO code>)", the connection settings' catalogue.priceBook), in that transaction
//   currency (a price list item prices a product in one price list).
// Safe to run twice: what exists is found by name and left as it is. Returns the GUIDs the catalogue sync
// writes with: the unit group, its base unit and each currency's price list (catalogueIds says how the
// connection keeps them).
import { quoted } from './odata.ts';
import { attributeMetadata } from './setup.ts';
import { missingPrivileges } from './privileges.ts';
import { DynamicsCallError, type DynamicsTransport } from './transport.ts';

type Report = { created: string[]; present: string[]; problems: string[] };

export const UNIT_GROUP_NAME = 'Marketplace units';
export const BASE_UNIT_NAME = 'Unit';
export const PRICE_KEY = { logicalName: 'ccs_pricekey_key', label: 'Commerce price key', column: 'ccs_pricekey' } as const;
export const PRICE_ENTRY_KEY = { logicalName: 'ccs_priceentrykey_key', label: 'Commerce price entry key', column: 'ccs_priceentrykey' } as const;

/** The columns made on product (String, as attributeMetadata takes them). */
export const PRODUCT_COLUMNS = [
  { logicalName: 'ccs_commerceproductid', label: 'Commerce product id', type: 'String' as const, maxLength: 100 },
  { logicalName: 'ccs_dimensionkey', label: 'Commerce dimension key', type: 'String' as const, maxLength: 200 },
  { logicalName: 'ccs_pricekey', label: 'Commerce price key', type: 'String' as const, maxLength: 400 },
];

/** The column made on productpricelevel: the price key (400) with "|" and an ISO 4217 code, some room to spare. */
export const PRICE_LIST_ITEM_COLUMNS = [{ logicalName: 'ccs_priceentrykey', label: 'Commerce price entry key', type: 'String' as const, maxLength: 420 }];

/** Each table the catalogue keys its rows on: its columns and the alternate key the sync upserts by. */
const KEYED_TABLES = [
  { table: 'product', columns: PRODUCT_COLUMNS, key: PRICE_KEY },
  { table: 'productpricelevel', columns: PRICE_LIST_ITEM_COLUMNS, key: PRICE_ENTRY_KEY },
];

/** The tables the catalogue sync writes: the application user needs to create, read and write them. */
export const CATALOGUE_TABLES = ['product', 'uomschedule', 'uom', 'pricelevel', 'productpricelevel'];

export const priceListName = (priceBook: string, currency: string) => `${priceBook} (${currency})`;

export type CatalogueSetupOptions = {
  /** The connection's price book (its settings' catalogue.priceBook): the price lists are named after it. */
  priceBook: string;
  /** ISO codes of the currencies its prices are in (default: every currency of the environment, its base currency first). */
  currencies?: string[];
  /** How long to wait for the new alternate keys to become Active (default two minutes; 0 does not wait). */
  keyWaitMs?: number;
};

export type CatalogueSetup = { unitGroupId?: string; baseUnitId?: string; priceLists: Record<string, string> };

/** What a connection keeps of a catalogue setup (its crm.catalogueIds): unitGroupId, baseUnitId, priceList:<ISO code>. */
export function dynamicsCatalogueIds(setup: CatalogueSetup): Record<string, string> {
  return {
    ...(setup.unitGroupId && { unitGroupId: setup.unitGroupId }),
    ...(setup.baseUnitId && { baseUnitId: setup.baseUnitId }),
    ...Object.fromEntries(Object.entries(setup.priceLists).map(([code, id]) => [`priceList:${code}`, id])),
  };
}

export async function setUpDynamicsCatalogue(transport: DynamicsTransport, report: Report, options: CatalogueSetupOptions): Promise<CatalogueSetup> {
  const result: CatalogueSetup = { priceLists: {} };
  const guard = async (where: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof DynamicsCallError)) throw error;
      report.problems.push(`${where}: Dataverse refused (${error.info.message})`);
    }
  };
  const watched: Watched[] = [];
  for (const keyed of KEYED_TABLES) {
    await guard(`${keyed.table} columns`, async () => {
      const watch = await ensureKeyedColumns(transport, report, keyed);
      if (watch) watched.push(watch);
    });
  }
  await guard('alternate keys', () => awaitKeys(transport, report, watched, options.keyWaitMs ?? 120_000));
  await guard(`unit group "${UNIT_GROUP_NAME}"`, async () => {
    Object.assign(result, await ensureUnitGroup(transport, report));
  });
  await guard('price lists', async () => {
    result.priceLists = await ensurePriceLists(transport, report, options);
  });
  await guard("the application user's privileges", async () => {
    report.problems.push(...(await missingPrivileges(transport, CATALOGUE_TABLES)).map((problem) => problem.message));
  });
  return result;
}

type KeyState = { LogicalName?: string; KeyAttributes?: string[]; EntityKeyIndexStatus?: string };
type Definition = { Attributes?: { LogicalName: string; AttributeType?: string }[]; Keys?: KeyState[] };
type Keyed = (typeof KEYED_TABLES)[number];
/** A key made in this run or found not Active: waited for, then reported. */
type Watched = { keyed: Keyed; made: boolean };

const readTable = (transport: DynamicsTransport, table: string) =>
  transport.call(`reading the definition of ${table}`, (client) =>
    client.retrieveEntity({
      key: `LogicalName=${quoted(table)}`,
      select: ['LogicalName'],
      expand: [{ property: 'Attributes', select: ['LogicalName', 'AttributeType'] }, { property: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] }],
    }),
  ) as Promise<Definition>;

const label = (text: string) => ({ '@odata.type': 'Microsoft.Dynamics.CRM.Label', LocalizedLabels: [{ '@odata.type': 'Microsoft.Dynamics.CRM.LocalizedLabel', Label: text, LanguageCode: 1033 }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keyText = ({ table, key }: Keyed) => `${table} alternate key ${key.logicalName} (${key.column})`;
const sameKey = ({ key }: Keyed) => (found: KeyState) => found.LogicalName === key.logicalName || (found.KeyAttributes?.length === 1 && found.KeyAttributes[0] === key.column);

/** The table's columns made where missing, then its key; answers the key to wait for (undefined: Active already). */
async function ensureKeyedColumns(transport: DynamicsTransport, report: Report, keyed: Keyed): Promise<Watched | undefined> {
  const definition = await readTable(transport, keyed.table);
  const attributes = new Map((definition.Attributes ?? []).map((attribute) => [attribute.LogicalName, attribute]));
  for (const column of keyed.columns) {
    const where = `${keyed.table}.${column.logicalName}`;
    const found = attributes.get(column.logicalName);
    if (found) {
      if (found.AttributeType && found.AttributeType !== 'String') report.problems.push(`${where} exists as a column of type ${found.AttributeType}; the sync writes it as text: change or rename it in Dataverse`);
      else report.present.push(where);
      continue;
    }
    await transport.call(`creating the column ${where}`, (client) => client.createAttribute({ entityKey: `LogicalName=${quoted(keyed.table)}`, data: attributeMetadata(column) }));
    report.created.push(where);
  }
  const key = (definition.Keys ?? []).find(sameKey(keyed));
  if (key && (key.EntityKeyIndexStatus ?? 'Active') === 'Active') {
    report.present.push(keyText(keyed));
    return undefined;
  }
  if (!key) {
    await transport.call(`creating the ${keyText(keyed)}`, (client) =>
      client.create({ collection: 'EntityDefinitions', key: `LogicalName=${quoted(keyed.table)}`, navigationProperty: 'Keys', data: { SchemaName: keyed.key.logicalName, DisplayName: label(keyed.key.label), KeyAttributes: [keyed.key.column] } }),
    );
  }
  return { keyed, made: !key };
}

/** A new key is Pending until Dataverse has built its index: wait a while for the keys, as setup does for the others. */
async function awaitKeys(transport: DynamicsTransport, report: Report, watched: Watched[], keyWaitMs: number) {
  const deadline = Date.now() + keyWaitMs;
  const status = new Map<Watched, string>();
  for (let pollMs = 200; watched.length > 0; pollMs = Math.min(pollMs * 1.5, 5_000)) {
    for (const watch of watched) status.set(watch, ((await readTable(transport, watch.keyed.table)).Keys ?? []).find(sameKey(watch.keyed))?.EntityKeyIndexStatus ?? 'Active');
    if (watched.every((watch) => !['Pending', 'InProgress'].includes(status.get(watch)!)) || Date.now() >= deadline) break;
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
  }
  for (const watch of watched) {
    const where = keyText(watch.keyed);
    const now = status.get(watch)!;
    const column = watch.keyed.key.column;
    if (now === 'Active') (watch.made ? report.created : report.present).push(where);
    else if (now === 'Failed') report.problems.push(`${where} could not be activated (Failed): ${watch.keyed.table} rows already share a ${column} value. Merge or delete the extra ones and run crm-sync setup again`);
    else report.problems.push(`${where} is not active yet (${now}): Dataverse is still building its index. Wait a few minutes and run crm-sync setup again`);
  }
}

async function ensureUnitGroup(transport: DynamicsTransport, report: Report): Promise<{ unitGroupId: string; baseUnitId?: string }> {
  const where = `unit group "${UNIT_GROUP_NAME}"`;
  const find = async () =>
    ((await transport.call(`reading the ${where}`, (client) => client.retrieveMultiple({ collection: 'uomschedules', select: ['uomscheduleid', 'name'], filter: `name eq ${quoted(UNIT_GROUP_NAME)}` }))) as { value: { uomscheduleid: string }[] }).value[0]
      ?.uomscheduleid;
  let unitGroupId = await find();
  if (unitGroupId) report.present.push(where);
  else {
    // Dataverse makes the group's base unit with it, named by baseuomname.
    unitGroupId = (await transport.call(`creating the ${where}`, (client) => client.create({ collection: 'uomschedules', data: { name: UNIT_GROUP_NAME, baseuomname: BASE_UNIT_NAME, description: 'Units of marketplace products, made by commerce-crm-sync' } }))) as unknown as string;
    report.created.push(`${where} with its base unit "${BASE_UNIT_NAME}"`);
  }
  const units = (await transport.call(`reading the units of the ${where}`, (client) =>
    client.retrieveMultiple({ collection: 'uoms', select: ['uomid', 'name', '_baseuom_value'], filter: `_uomscheduleid_value eq ${unitGroupId}` }),
  )) as { value: { uomid: string; _baseuom_value?: string | null }[] };
  const base = units.value.find((unit) => !unit._baseuom_value);
  if (!base) report.problems.push(`${where} has no base unit: add one in Dynamics (Settings, Product Catalog, Unit Groups)`);
  return { unitGroupId, baseUnitId: base?.uomid };
}

async function ensurePriceLists(transport: DynamicsTransport, report: Report, options: CatalogueSetupOptions): Promise<Record<string, string>> {
  const currencies = (await transport.call('reading the currencies', (client) => client.retrieveMultiple({ collection: 'transactioncurrencies', select: ['transactioncurrencyid', 'isocurrencycode'] }))) as {
    value: { transactioncurrencyid: string; isocurrencycode: string }[];
  };
  let wanted = options.currencies ?? [];
  if (wanted.length === 0) {
    const organization = (await transport.call('reading the organisation', (client) => client.retrieveMultiple({ collection: 'organizations', select: ['_basecurrencyid_value'] }))) as { value: { _basecurrencyid_value: string }[] };
    // Every currency the environment has, its base currency first: a commerce price in any of them has a
    // price list to go in (the catalogue writes prices only where one is kept, crm.catalogueIds).
    const base = currencies.value.find((currency) => currency.transactioncurrencyid === organization.value[0]?._basecurrencyid_value);
    wanted = [...(base ? [base.isocurrencycode] : []), ...currencies.value.filter((currency) => currency !== base).map((currency) => currency.isocurrencycode)];
  }
  const priceLists: Record<string, string> = {};
  for (const code of wanted) {
    const name = priceListName(options.priceBook, code);
    const where = `price list "${name}"`;
    const currency = currencies.value.find((row) => row.isocurrencycode === code);
    if (!currency) {
      report.problems.push(`${where} could not be created: the environment has no ${code} currency. Add it (Settings, Business Management, Currencies) and run setup again`);
      continue;
    }
    const found = ((await transport.call(`reading the ${where}`, (client) => client.retrieveMultiple({ collection: 'pricelevels', select: ['pricelevelid', '_transactioncurrencyid_value'], filter: `name eq ${quoted(name)}` }))) as {
      value: { pricelevelid: string; _transactioncurrencyid_value?: string }[];
    }).value[0];
    if (found) {
      if (found._transactioncurrencyid_value && found._transactioncurrencyid_value !== currency.transactioncurrencyid) report.problems.push(`${where} exists in another currency: rename it in Dynamics, then run setup again`);
      else report.present.push(where);
      priceLists[code] = found.pricelevelid;
      continue;
    }
    priceLists[code] = (await transport.call(`creating the ${where}`, (client) =>
      client.create({ collection: 'pricelevels', data: { name, description: 'Prices of marketplace products, kept by commerce-crm-sync', 'transactioncurrencyid@odata.bind': `/transactioncurrencies(${currency.transactioncurrencyid})` } }),
    )) as unknown as string;
    report.created.push(where);
  }
  return priceLists;
}
