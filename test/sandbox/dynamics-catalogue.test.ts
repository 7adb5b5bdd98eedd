// Dynamics sandbox (issue #28): the sales catalogue as Dataverse keeps it (docs/crm-wire-behaviour.md,
// Dynamics "Products and line items"), through dynamics-web-api unmodified: a unit group made with its
// base unit; units of a group; products with a unit group, a default unit of it, decimals supported and a
// unique product number, Draft until published (or Active where the organisation creates them so); price
// lists in a currency with unique names; one price list item per product and unit; opportunity products
// priced from the opportunity's price list, overridden, or written in; Dataverse's own error codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { nameGuid } from '../../sandbox/dynamics/schema.ts';
import { clientFor } from './dynamics-helpers.ts';

const HOSTILE = `Données "Analytics" O'Neil \\ 東京 ✓`;
const EUR = nameGuid('transactioncurrency:EUR');

let sb: DynamicsSandbox;
let api: ReturnType<typeof clientFor>;
let active: DynamicsSandbox;
let activeApi: ReturnType<typeof clientFor>;

beforeAll(async () => {
  [sb, active] = await Promise.all([startDynamicsSandbox({ keyActivationMs: 0, currencies: ['EUR'] }), startDynamicsSandbox({ keyActivationMs: 0, productsCreatedActive: true })]);
  api = clientFor(sb);
  activeApi = clientFor(active);
});
afterAll(async () => Promise.all([sb.stop(), active.stop()]));

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return error as any;
  }
  throw new Error('expected a failure');
};

type Client = ReturnType<typeof clientFor>;
/** A unit group and its base unit's GUID. */
async function unitGroup(client: Client, name: string) {
  const group = (await client.create({ collection: 'uomschedules', data: { name, baseuomname: 'Unit' } })) as unknown as string;
  const units: any = await client.retrieveMultiple({ collection: 'uoms', select: ['name', 'quantity', 'isschedulebaseuom'], filter: `_uomscheduleid_value eq ${group}` });
  return { group, base: units.value[0].uomid as string, units: units.value };
}
let counter = 0;
const productData = (group: string, unit: string, extra: Record<string, unknown> = {}) => ({
  name: HOSTILE,
  productnumber: `P-${++counter}`,
  quantitydecimal: 0,
  'defaultuomscheduleid@odata.bind': `/uomschedules(${group})`,
  'defaultuomid@odata.bind': `/uoms(${unit})`,
  ...extra,
});

describe('Dynamics sandbox: unit groups and units', () => {
  it('makes a unit group with its base unit, refuses one without baseuomname (0x80043810) and keeps its base unit (0x80043b03)', async () => {
    const { units } = await unitGroup(api, 'Marketplace units');
    expect(units).toMatchObject([{ name: 'Unit', quantity: 1, isschedulebaseuom: true }]);
    const refused = await errorOf(api.create({ collection: 'uomschedules', data: { name: 'No base' } }));
    expect([refused.status, refused.code]).toEqual([400, '0x80043810']);
    const baseDeleted = await errorOf(api.deleteRecord({ collection: 'uoms', key: units[0].uomid }));
    expect([baseDeleted.status, baseDeleted.code, baseDeleted.message]).toEqual([400, '0x80043b03', 'The base unit of a schedule cannot be deleted.']);
  });

  it('makes a unit of a group on its base unit and refuses a base unit of another group (0x80043b0b) or none (0x80043b1c)', async () => {
    const a = await unitGroup(api, 'Group A');
    const b = await unitGroup(api, 'Group B');
    const hour = await api.create({ collection: 'uoms', data: { name: 'Hour', quantity: 1, 'uomscheduleid@odata.bind': `/uomschedules(${a.group})`, 'baseuom@odata.bind': `/uoms(${a.base})` } });
    expect(hour).toBeTruthy();
    const foreign = await errorOf(api.create({ collection: 'uoms', data: { name: 'Day', 'uomscheduleid@odata.bind': `/uomschedules(${a.group})`, 'baseuom@odata.bind': `/uoms(${b.base})` } }));
    expect([foreign.status, foreign.code, foreign.message]).toEqual([400, '0x80043b0b', 'The base unit does not belong to the schedule.']);
    const none = await errorOf(api.create({ collection: 'uoms', data: { name: 'Day', 'uomscheduleid@odata.bind': `/uomschedules(${a.group})` } }));
    expect(none.code).toBe('0x80043b1c');
  });
});

describe('Dynamics sandbox: products', () => {
  it('refuses a product without its unit group, default unit, decimals or number, or with a unit of another group, in Dataverse\'s words', async () => {
    const a = await unitGroup(api, 'Products A');
    const b = await unitGroup(api, 'Products B');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ 'defaultuomscheduleid@odata.bind': undefined }, '0x80043b13', 'The unit schedule id of the product is missing.'],
      [{ 'defaultuomid@odata.bind': undefined }, '0x80043b0d', 'The unit id is missing.'],
      [{ quantitydecimal: undefined }, '0x80043afc', 'The quantity decimal code is invalid.'],
      [{ productnumber: undefined }, '0x80043b05', 'The product number can not be null.'],
      [{ 'defaultuomid@odata.bind': `/uoms(${b.base})` }, '0x80043b16', 'The unit does not exist in the specified unit schedule.'],
    ];
    for (const [change, code, message] of cases) {
      const data: Record<string, unknown> = { ...productData(a.group, a.base), ...change };
      for (const key of Object.keys(data)) if (data[key] === undefined) delete data[key];
      const refused = await errorOf(api.create({ collection: 'products', data }));
      expect([refused.status, refused.code, refused.message], JSON.stringify(change)).toEqual([400, code, message]);
    }
    const range = await errorOf(api.create({ collection: 'products', data: productData(a.group, a.base, { quantitydecimal: 6 }) }));
    expect(range.status).toBe(400);
  });

  it('keeps product numbers unique (0x80043b06) and starts a product Draft (statecode 2, statuscode 0) until a PATCH publishes it', async () => {
    const { group, base } = await unitGroup(api, 'Lifecycle');
    const id = (await api.create({ collection: 'products', data: productData(group, base, { productnumber: `prod-${HOSTILE}` }) })) as unknown as string;
    const twin = await errorOf(api.create({ collection: 'products', data: productData(group, base, { productnumber: `PROD-${HOSTILE}` }) }));
    expect([twin.status, twin.code]).toEqual([400, '0x80043b06']);
    const made: any = await api.retrieve({ collection: 'products', key: id, select: ['name', 'statecode', 'statuscode', 'productstructure'] });
    expect(made).toMatchObject({ name: HOSTILE, statecode: 2, statuscode: 0, productstructure: 1 });
    const mismatched = await errorOf(api.update({ collection: 'products', key: id, data: { statecode: 0, statuscode: 2 } }));
    expect([mismatched.status, mismatched.code]).toEqual([400, '0x80040203']);
    await api.update({ collection: 'products', key: id, data: { statecode: 0, statuscode: 1 } });
    expect(await api.retrieve({ collection: 'products', key: id, select: ['statecode', 'statuscode'] })).toMatchObject({ statecode: 0, statuscode: 1 });
  });

  it('starts a product without a family Active where the organisation creates products so', async () => {
    const { group, base } = await unitGroup(activeApi, 'Active org');
    const id = (await activeApi.create({ collection: 'products', data: productData(group, base) })) as unknown as string;
    expect(await activeApi.retrieve({ collection: 'products', key: id, select: ['statecode', 'statuscode'] })).toMatchObject({ statecode: 0, statuscode: 1 });
    // One made under a family is Draft all the same, until its family's hierarchy is published.
    const family = (await activeApi.create({ collection: 'products', data: { name: 'Family', productnumber: 'FAM-A', productstructure: 2 } })) as unknown as string;
    const child = (await activeApi.create({ collection: 'products', data: productData(group, base, { 'parentproductid@odata.bind': `/products(${family})` }) })) as unknown as string;
    expect(await activeApi.retrieve({ collection: 'products', key: child, select: ['statecode'] })).toMatchObject({ statecode: 2 });
  });
});

describe('Dynamics sandbox: product families', () => {
  it('publishes a family and the products under it with PublishProductHierarchy; a child cannot be published before its family, nor have a product as parent', async () => {
    const { group, base } = await unitGroup(api, 'Families');
    const family = (await api.create({ collection: 'products', data: { name: 'Analytics family', productnumber: 'FAM-1', productstructure: 2 } })) as unknown as string;
    const child = (await api.create({ collection: 'products', data: productData(group, base, { 'parentproductid@odata.bind': `/products(${family})` }) })) as unknown as string;
    expect(await api.retrieve({ collection: 'products', key: family, select: ['statecode'] })).toMatchObject({ statecode: 2 });
    const early = await errorOf(api.update({ collection: 'products', key: child, data: { statecode: 0, statuscode: 1 } }));
    expect([early.status, early.code]).toEqual([400, '0x80040203']);
    const notFamily = await errorOf(api.create({ collection: 'products', data: productData(group, base, { 'parentproductid@odata.bind': `/products(${child})` }) }));
    expect([notFamily.status, notFamily.code]).toEqual([400, '0x80040203']);
    const onProduct = await errorOf(api.callAction({ collection: 'products', key: child, actionName: 'Microsoft.Dynamics.CRM.PublishProductHierarchy' }));
    expect(onProduct.status).toBe(400);
    await api.callAction({ collection: 'products', key: family, actionName: 'Microsoft.Dynamics.CRM.PublishProductHierarchy' });
    for (const id of [family, child]) expect(await api.retrieve({ collection: 'products', key: id, select: ['statecode', 'statuscode'] })).toMatchObject({ statecode: 0, statuscode: 1 });
  });
});

describe('Dynamics sandbox: price lists and their items', () => {
  it('keeps a price list in its bound currency (the base currency when none) with a unique name (0x80043b0f)', async () => {
    const euro = (await api.create({ collection: 'pricelevels', data: { name: `Marketplace EUR ${HOSTILE}`, 'transactioncurrencyid@odata.bind': `/transactioncurrencies(${EUR})` } })) as unknown as string;
    const plain = (await api.create({ collection: 'pricelevels', data: { name: 'Marketplace USD' } })) as unknown as string;
    const rows: any = await api.retrieveMultiple({ collection: 'pricelevels', select: ['name', '_transactioncurrencyid_value'], filter: `pricelevelid eq ${euro} or pricelevelid eq ${plain}` });
    const byName = Object.fromEntries(rows.value.map((r: any) => [r.name, r._transactioncurrencyid_value]));
    expect(byName).toEqual({ [`Marketplace EUR ${HOSTILE}`]: EUR, 'Marketplace USD': nameGuid('transactioncurrency:USD') });
    const twin = await errorOf(api.create({ collection: 'pricelevels', data: { name: 'marketplace usd' } }));
    expect([twin.status, twin.code, twin.message]).toEqual([400, '0x80043b0f', 'The name already exists.']);
    const unknown = await errorOf(api.create({ collection: 'pricelevels', data: { name: 'Nowhere', 'transactioncurrencyid@odata.bind': '/transactioncurrencies(00000000-0000-0000-0000-000000000001)' } }));
    expect(unknown.status).toBe(404);
  });

  it('prices a product once per unit of its group in a price list, refusing another unit (0x80043b14) or a second price (0x80043b08); the first becomes its default price list', async () => {
    const a = await unitGroup(api, 'Priced A');
    const b = await unitGroup(api, 'Priced B');
    const product = (await api.create({ collection: 'products', data: productData(a.group, a.base) })) as unknown as string;
    const list = (await api.create({ collection: 'pricelevels', data: { name: 'Priced list' } })) as unknown as string;
    const item = (data: Record<string, unknown>) => api.create({ collection: 'productpricelevels', data: { 'pricelevelid@odata.bind': `/pricelevels(${list})`, 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${a.base})`, amount: 120.5, ...data } });
    const missing: [string, string][] = [['pricelevelid@odata.bind', '0x80043b12'], ['productid@odata.bind', '0x80043b11'], ['uomid@odata.bind', '0x80043b0d']];
    for (const [bind, code] of missing) {
      const data: Record<string, unknown> = { 'pricelevelid@odata.bind': `/pricelevels(${list})`, 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${a.base})`, amount: 1 };
      delete data[bind];
      expect((await errorOf(api.create({ collection: 'productpricelevels', data }))).code, bind).toBe(code);
    }
    const foreign = await errorOf(item({ 'uomid@odata.bind': `/uoms(${b.base})` }));
    expect([foreign.status, foreign.code, foreign.message]).toEqual([400, '0x80043b14', 'The specified unit is not valid for this product.']);
    const first = (await item({})) as unknown as string;
    const again = await errorOf(item({ amount: 99 }));
    expect([again.status, again.code, again.message]).toEqual([400, '0x80043b08', 'This product and unit combination has a price for this price list.']);
    expect(await api.retrieve({ collection: 'productpricelevels', key: first, select: ['amount', 'pricingmethodcode', '_uomscheduleid_value'] })).toMatchObject({ amount: 120.5, pricingmethodcode: 1, _uomscheduleid_value: a.group });
    expect(await api.retrieve({ collection: 'products', key: product, select: ['_pricelevelid_value'] })).toMatchObject({ _pricelevelid_value: list });
  });
});

describe('Dynamics sandbox: the catalogue in a $batch', () => {
  it('keeps its rules in a change set: a refused price list item undoes the unit group, its base unit and the product made before it', async () => {
    const list = (await api.create({ collection: 'pricelevels', data: { name: 'Batch list' } })) as unknown as string;
    const count = async (collection: string) => ((await api.retrieveMultiple({ collection, select: ['createdon'] })) as any).value.length;
    const before = await Promise.all(['uomschedules', 'uoms', 'products', 'productpricelevels'].map(count));
    const { group, base } = await unitGroup(api, 'Batch units');
    const other = await unitGroup(api, 'Batch other');
    api.startBatch();
    api.create({ collection: 'products', data: productData(group, base), contentId: '1' });
    api.create({ collection: 'productpricelevels', data: { 'pricelevelid@odata.bind': `/pricelevels(${list})`, 'productid@odata.bind': '$1', 'uomid@odata.bind': `/uoms(${other.base})`, amount: 3 } });
    const failed = await api.executeBatch().catch((error) => error);
    const errors = Array.isArray(failed) ? failed : [failed];
    expect(errors).toHaveLength(1);
    expect([errors[0].status, errors[0].error.code]).toEqual([400, '0x80043b14']);
    const after = await Promise.all(['uomschedules', 'uoms', 'products', 'productpricelevels'].map(count));
    // Only the two unit groups (and their base units) made outside the change set are new.
    expect(after).toEqual([before[0]! + 2, before[1]! + 2, before[2], before[3]]);
    api.startBatch();
    api.create({ collection: 'products', data: productData(group, base), contentId: '1' });
    api.create({ collection: 'productpricelevels', data: { 'pricelevelid@odata.bind': `/pricelevels(${list})`, 'productid@odata.bind': '$1', 'uomid@odata.bind': `/uoms(${base})`, amount: 3 } });
    const made = await api.executeBatch();
    expect(made).toHaveLength(2);
    expect(await api.retrieve({ collection: 'products', key: made[0] as string, select: ['_pricelevelid_value'] })).toMatchObject({ _pricelevelid_value: list });
  });
});

describe('Dynamics sandbox: opportunity products', () => {
  it("prices a line from the opportunity's price list, takes an overridden price, takes a write-in product, and saves a line it cannot price with its pricingerrorcode", async () => {
    const { group, base } = await unitGroup(api, 'Offer units');
    const listed = (await api.create({ collection: 'products', data: productData(group, base) })) as unknown as string;
    const unlisted = (await api.create({ collection: 'products', data: productData(group, base) })) as unknown as string;
    const list = (await api.create({ collection: 'pricelevels', data: { name: 'Offer list' } })) as unknown as string;
    await api.create({ collection: 'productpricelevels', data: { 'pricelevelid@odata.bind': `/pricelevels(${list})`, 'productid@odata.bind': `/products(${listed})`, 'uomid@odata.bind': `/uoms(${base})`, amount: 19.99 } });
    const priced = (await api.create({ collection: 'opportunities', data: { name: 'Two products', 'pricelevelid@odata.bind': `/pricelevels(${list})` } })) as unknown as string;
    const unpriced = (await api.create({ collection: 'opportunities', data: { name: 'No price list' } })) as unknown as string;
    const line = async (opportunity: string, data: Record<string, unknown>) => {
      const id = (await api.create({ collection: 'opportunityproducts', data: { 'opportunityid@odata.bind': `/opportunities(${opportunity})`, ...data } })) as unknown as string;
      return api.retrieve({ collection: 'opportunityproducts', key: id, select: ['priceperunit', 'quantity', 'baseamount', 'extendedamount', 'pricingerrorcode', 'ispriceoverridden', 'isproductoverridden'] });
    };
    const catalogue = (product: string, extra: Record<string, unknown> = {}) => ({ 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${base})`, quantity: 3, ...extra });
    expect(await line(priced, catalogue(listed, { priceperunit: 1 }))).toMatchObject({ priceperunit: 19.99, baseamount: 59.97, extendedamount: 59.97, pricingerrorcode: 0, ispriceoverridden: false, isproductoverridden: false });
    expect(await line(priced, catalogue(listed, { ispriceoverridden: true, priceperunit: 15, manualdiscountamount: 5 }))).toMatchObject({ priceperunit: 15, baseamount: 45, extendedamount: 40, pricingerrorcode: 0, ispriceoverridden: true });
    expect(await line(priced, { productdescription: HOSTILE, priceperunit: 7, quantity: 2 })).toMatchObject({ priceperunit: 7, baseamount: 14, isproductoverridden: true, pricingerrorcode: 0 });
    expect(await line(priced, catalogue(unlisted))).toMatchObject({ priceperunit: 0, baseamount: 0, pricingerrorcode: 11 });
    expect(await line(unpriced, catalogue(listed))).toMatchObject({ priceperunit: 0, pricingerrorcode: 2 });
    const lines: any = await api.retrieveMultiple({ collection: 'opportunityproducts', select: ['baseamount'], filter: `_opportunityid_value eq ${priced}`, expand: [{ property: 'productid', select: ['name'] }] });
    expect(lines.value).toHaveLength(4);
  });

  it("refuses a line without its opportunity, product or unit, with a unit of another group, or naming both a product and a write-in, in Dataverse's words", async () => {
    const a = await unitGroup(api, 'Refused A');
    const b = await unitGroup(api, 'Refused B');
    const product = (await api.create({ collection: 'products', data: productData(a.group, a.base) })) as unknown as string;
    const opportunity = (await api.create({ collection: 'opportunities', data: { name: 'Refusals' } })) as unknown as string;
    const of = `/opportunities(${opportunity})`;
    const cases: [Record<string, unknown>, string][] = [
      [{ 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${a.base})` }, '0x80043b15'],
      [{ 'opportunityid@odata.bind': of, quantity: 1 }, '0x80043b11'],
      [{ 'opportunityid@odata.bind': of, 'productid@odata.bind': `/products(${product})` }, '0x80043b0d'],
      [{ 'opportunityid@odata.bind': of, 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${b.base})` }, '0x80043b14'],
      [{ 'opportunityid@odata.bind': of, 'productid@odata.bind': `/products(${product})`, productdescription: 'Both' }, '0x80043afb'],
      [{ 'opportunityid@odata.bind': of, 'uomid@odata.bind': `/uoms(${a.base})`, productdescription: 'Write-in' }, '0x80043afa'],
    ];
    for (const [data, code] of cases) {
      const refused = await errorOf(api.create({ collection: 'opportunityproducts', data }));
      expect([refused.status, refused.code], JSON.stringify(data)).toEqual([400, code]);
    }
    const none: any = await api.retrieveMultiple({ collection: 'opportunityproducts', select: ['opportunityproductid'], filter: `_opportunityid_value eq ${opportunity}` });
    expect(none.value).toEqual([]);
  });
});
