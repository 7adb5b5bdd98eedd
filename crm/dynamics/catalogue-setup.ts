// `crm-sync setup` for Dynamics' product catalogue (issue #28): what Dataverse requires before a product
// can be priced (docs/crm-wire-behaviour.md, Dynamics "Products and line items"):
// - on `product`, the columns that tie it to one commerce product dimension (ccs_commerceproductid,
//   ccs_dimensionkey, ccs_pricekey = "productId|dimensionKey") and an alternate key on ccs_pricekey, so the
//   sync upserts products by it;
// - a unit group "Marketplace units" with its base unit "Unit" (every product names a unit group and a
//   default unit of it);
// - a price list per currency the connection sells in, named by the connection ("<name> (<ISO code>)"),
//   in that transaction currency (a price list item prices a product in one price list).
// Safe to run twice: what exists is found by name and left as it is. Returns the GUIDs the catalogue sync
// writes with: the unit group, its base unit and each currency's price list.
import { quoted } from './odata.ts';
import { attributeMetadata } from './setup.ts';
import { missingPrivileges } from './privileges.ts';
import { DynamicsCallError, type DynamicsTransport } from './transport.ts';

type Report = { created: string[]; present: string[]; problems: string[] };

export const UNIT_GROUP_NAME = 'Marketplace units';
export const BASE_UNIT_NAME = 'Unit';
export const PRICE_KEY = { logicalName: 'ccs_pricekey_key', label: 'Commerce price key', column: 'ccs_pricekey' } as const;

/** The columns made on product (String, as attributeMetadata takes them). */
export const PRODUCT_COLUMNS = [
  { logicalName: 'ccs_commerceproductid', label: 'Commerce product id', type: 'String' as const, maxLength: 100 },
  { logicalName: 'ccs_dimensionkey', label: 'Commerce dimension key', type: 'String' as const, maxLength: 200 },
  { logicalName: 'ccs_pricekey', label: 'Commerce price key', type: 'String' as const, maxLength: 400 },
];

/** The tables the catalogue sync writes: the application user needs to create, read and write them. */
export const CATALOGUE_TABLES = ['product', 'uomschedule', 'uom', 'pricelevel', 'productpricelevel'];

export const priceListName = (connectionName: string, currency: string) => `${connectionName} (${currency})`;

export type CatalogueSetupOptions = {
  /** The connection's name: its price lists are named after it. */
  connectionName: string;
  /** ISO codes of the currencies its offers are in (default: the organisation's base currency). */
  currencies?: string[];
  /** How long to wait for the new alternate key to become Active (default two minutes; 0 does not wait). */
  keyWaitMs?: number;
};

export type CatalogueSetup = { unitGroupId?: string; baseUnitId?: string; priceLists: Record<string, string> };

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
  await guard('product columns', () => ensureProductColumns(transport, report, options.keyWaitMs ?? 120_000));
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

type Definition = { Attributes?: { LogicalName: string; AttributeType?: string }[]; Keys?: { LogicalName?: string; KeyAttributes?: string[]; EntityKeyIndexStatus?: string }[] };

const readProduct = (transport: DynamicsTransport) =>
  transport.call('reading the definition of product', (client) =>
    client.retrieveEntity({
      key: "LogicalName='product'",
      select: ['LogicalName'],
      expand: [{ property: 'Attributes', select: ['LogicalName', 'AttributeType'] }, { property: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] }],
    }),
  ) as Promise<Definition>;

const label = (text: string) => ({ '@odata.type': 'Microsoft.Dynamics.CRM.Label', LocalizedLabels: [{ '@odata.type': 'Microsoft.Dynamics.CRM.LocalizedLabel', Label: text, LanguageCode: 1033 }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ensureProductColumns(transport: DynamicsTransport, report: Report, keyWaitMs: number) {
  const definition = await readProduct(transport);
  const attributes = new Map((definition.Attributes ?? []).map((attribute) => [attribute.LogicalName, attribute]));
  for (const column of PRODUCT_COLUMNS) {
    const where = `product.${column.logicalName}`;
    const found = attributes.get(column.logicalName);
    if (found) {
      if (found.AttributeType && found.AttributeType !== 'String') report.problems.push(`${where} exists as a column of type ${found.AttributeType}; the sync writes it as text: change or rename it in Dataverse`);
      else report.present.push(where);
      continue;
    }
    await transport.call(`creating the column ${where}`, (client) => client.createAttribute({ entityKey: "LogicalName='product'", data: attributeMetadata(column) }));
    report.created.push(where);
  }
  const where = `product alternate key ${PRICE_KEY.logicalName} (${PRICE_KEY.column})`;
  const sameKey = (key: { LogicalName?: string; KeyAttributes?: string[] }) => key.LogicalName === PRICE_KEY.logicalName || (key.KeyAttributes?.length === 1 && key.KeyAttributes[0] === PRICE_KEY.column);
  let key = (definition.Keys ?? []).find(sameKey);
  const made = !key;
  if (!key) {
    await transport.call(`creating the ${where}`, (client) =>
      client.create({ collection: 'EntityDefinitions', key: "LogicalName='product'", navigationProperty: 'Keys', data: { SchemaName: PRICE_KEY.logicalName, DisplayName: label(PRICE_KEY.label), KeyAttributes: [PRICE_KEY.column] } }),
    );
  }
  // A new key is Pending until Dataverse has built its index: wait a while for it, as setup does for the others.
  const deadline = Date.now() + keyWaitMs;
  for (let pollMs = 200; ; pollMs = Math.min(pollMs * 1.5, 5_000)) {
    key = ((await readProduct(transport)).Keys ?? []).find(sameKey);
    const status = key?.EntityKeyIndexStatus ?? 'Active';
    if (!['Pending', 'InProgress'].includes(status) || Date.now() >= deadline) {
      if (status === 'Active') (made ? report.created : report.present).push(where);
      else if (status === 'Failed') report.problems.push(`${where} could not be activated (Failed): products already share a ${PRICE_KEY.column} value. Merge or delete the extra ones and run crm-sync setup again`);
      else report.problems.push(`${where} is not active yet (${status}): Dataverse is still building its index. Wait a few minutes and run crm-sync setup again`);
      return;
    }
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
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
    const base = currencies.value.find((currency) => currency.transactioncurrencyid === organization.value[0]?._basecurrencyid_value);
    wanted = base ? [base.isocurrencycode] : [];
  }
  const priceLists: Record<string, string> = {};
  for (const code of wanted) {
    const name = priceListName(options.connectionName, code);
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
