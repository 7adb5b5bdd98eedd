// Dynamics setup with the catalogue chosen (issue #28 section 1) against the Dataverse sandbox: setUpDynamics
// with a `catalogue` option makes the catalogue part too and records in its report the GUIDs the sync writes
// with (unit group, base unit, a price list per currency named from the connection's price book), each as
// the environment's own queries find them; the price list item's ccs_priceentrykey is an Active alternate
// key, so a price upserts by it (a second upsert changes the same item). Without the option the tables and
// keys of the catalogue are left as they were and no ids are recorded. Named no currencies, it makes a price
// list for each currency the environment has, its base currency first.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpDynamicsCatalogue } from '../../crm/dynamics/catalogue-setup.ts';
import { dynamicsCredentials } from '../../crm/dynamics/connector.ts';
import { createDynamicsTransport } from '../../crm/dynamics/transport.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';

let sandbox: DynamicsSandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
});

// A price book name with quotes, a backslash and non-Latin letters: the price lists' names go into a $filter.
const BOOK = `Acme's "EU" \\ 東京`;
const target = (sb: DynamicsSandbox) => ({ orgUrl: sb.orgUrl, credentials: dynamicsCredentials({ orgUrl: sb.orgUrl, authority: sb.authority, tenantId: sb.tenantId, clientId: sb.clientId }, { crmClientSecret: sb.clientSecret }) });
const odataString = (text: string) => `'${text.replace(/'/g, "''")}'`;

describe('Dynamics setup: catalogue ids and the price entry key', () => {
  it("records the unit group, base unit and price lists named from the price book, and prices upsert by the price list item's key", async () => {
    sandbox = await startDynamicsSandbox({ keyActivationMs: 50, currencies: ['EUR'], productsCreatedActive: true });
    const report = await setUpDynamics(target(sandbox), undefined, { keyWaitMs: 10_000, catalogue: { priceBook: BOOK, currencies: ['USD', 'EUR'] } });
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['productpricelevel.ccs_priceentrykey', 'productpricelevel alternate key ccs_priceentrykey_key (ccs_priceentrykey)', `price list "${BOOK} (USD)"`, `price list "${BOOK} (EUR)"`]));

    // The ids, as the environment answers them to a plain client.
    const api = clientFor(sandbox);
    const group: any = await api.retrieveMultiple({ collection: 'uomschedules', select: ['uomscheduleid'], filter: "name eq 'Marketplace units'" });
    const units: any = await api.retrieveMultiple({ collection: 'uoms', select: ['uomid', 'name'], filter: `_uomscheduleid_value eq ${group.value[0].uomscheduleid}` });
    const list = async (name: string) => ((await api.retrieveMultiple({ collection: 'pricelevels', select: ['pricelevelid'], filter: `name eq ${odataString(name)}` })) as any).value.map((row: any) => row.pricelevelid);
    const [usd] = await list(`${BOOK} (USD)`);
    const [eur] = await list(`${BOOK} (EUR)`);
    expect(units.value.map((unit: any) => unit.name)).toEqual(['Unit']);
    expect(report.catalogueIds).toEqual({ unitGroupId: group.value[0].uomscheduleid, baseUnitId: units.value[0].uomid, 'priceList:USD': usd, 'priceList:EUR': eur });

    // The key is usable: a price list item upserts by ccs_priceentrykey, and again onto the same item.
    const product: any = await api.upsert({
      collection: 'products',
      key: `ccs_pricekey='${encodeURIComponent('p-1|users')}'`,
      data: { name: 'Users', productnumber: 'p-1|users', quantitydecimal: 0, 'defaultuomscheduleid@odata.bind': `/uomschedules(${report.catalogueIds!.unitGroupId})`, 'defaultuomid@odata.bind': `/uoms(${report.catalogueIds!.baseUnitId})` },
      returnRepresentation: true,
    });
    const item = { 'pricelevelid@odata.bind': `/pricelevels(${eur})`, 'productid@odata.bind': `/products(${product.productid})`, 'uomid@odata.bind': `/uoms(${report.catalogueIds!.baseUnitId})` };
    const key = `ccs_priceentrykey='${encodeURIComponent('p-1|users|EUR')}'`;
    const made: any = await api.upsert({ collection: 'productpricelevels', key, data: { ...item, amount: 12.5 }, returnRepresentation: true });
    const changed: any = await api.upsert({ collection: 'productpricelevels', key, data: { amount: 11 }, returnRepresentation: true });
    expect(changed.productpricelevelid).toBe(made.productpricelevelid);
    const items: any = await api.retrieveMultiple({ collection: 'productpricelevels', select: ['amount', 'ccs_priceentrykey', '_pricelevelid_value'] });
    expect(items.value.map((row: any) => [row.ccs_priceentrykey, row.amount, row._pricelevelid_value])).toEqual([['p-1|users|EUR', 11, eur]]);

    // A second run makes nothing and finds the same ids.
    const again = await setUpDynamics(target(sandbox), undefined, { keyWaitMs: 10_000, catalogue: { priceBook: BOOK, currencies: ['USD', 'EUR'] } });
    expect(again).toMatchObject({ created: [], problems: [], catalogueIds: report.catalogueIds });
  }, 30_000);

  it('without the catalogue chosen leaves the catalogue tables as they were and records no ids', async () => {
    sandbox = await startDynamicsSandbox({ keyActivationMs: 0 });
    const report = await setUpDynamics(target(sandbox), undefined, { keyWaitMs: 5_000 });
    expect(report.problems).toEqual([]);
    expect(report.catalogueIds).toBeUndefined();
    const api = clientFor(sandbox);
    const item: any = await api.retrieveEntity({ key: "LogicalName='productpricelevel'", select: ['LogicalName'], expand: [{ property: 'Attributes', select: ['LogicalName'] }] });
    expect(item.Attributes.map((attribute: any) => attribute.LogicalName)).not.toContain('ccs_priceentrykey');
    expect(((await api.retrieveMultiple({ collection: 'pricelevels', select: ['name'] })) as any).value).toEqual([]);
  }, 30_000);

  it('named no currencies, makes a price list in each currency the environment has, its base currency first', async () => {
    sandbox = await startDynamicsSandbox({ keyActivationMs: 0, baseCurrency: 'EUR', currencies: ['JPY', 'USD'] });
    const report = { created: [] as string[], present: [] as string[], problems: [] as string[] };
    const made = await setUpDynamicsCatalogue(createDynamicsTransport(target(sandbox)), report, { priceBook: BOOK, keyWaitMs: 5_000 });
    expect(report.problems).toEqual([]);
    expect(Object.keys(made.priceLists)).toEqual(['EUR', 'JPY', 'USD']);
    expect(report.created.filter((line) => line.startsWith('price list'))).toEqual([`price list "${BOOK} (EUR)"`, `price list "${BOOK} (JPY)"`, `price list "${BOOK} (USD)"`]);
  });
});
