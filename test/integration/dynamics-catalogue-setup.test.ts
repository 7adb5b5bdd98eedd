// Dynamics setup for the product catalogue (issue #28) against the Dataverse sandbox: product columns and
// the ccs_pricekey alternate key, the price list item's ccs_priceentrykey and its key (Active before setup
// ends), the unit group "Marketplace units" with its base unit, a price list per currency named from the
// connection's price book in that currency; a second run finds them
// all; a currency the environment lacks is a problem. The result carries the GUIDs the sync writes with.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpDynamicsCatalogue } from '../../crm/dynamics/catalogue-setup.ts';
import { dynamicsCredentials } from '../../crm/dynamics/connector.ts';
import { createDynamicsTransport } from '../../crm/dynamics/transport.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { nameGuid } from '../../sandbox/dynamics/schema.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';

let sandbox: DynamicsSandbox | undefined;
afterEach(async () => sandbox?.stop());

const transportFor = (sb: DynamicsSandbox) =>
  createDynamicsTransport({ orgUrl: sb.orgUrl, credentials: dynamicsCredentials({ orgUrl: sb.orgUrl, authority: sb.authority, tenantId: sb.tenantId, clientId: sb.clientId }, { crmClientSecret: sb.clientSecret }) });
const fresh = () => ({ created: [] as string[], present: [] as string[], problems: [] as string[] });
// A price book name with quotes, a backslash and non-Latin letters: it goes into a $filter.
const NAME = `Acme "EU" O'Neil \\ 東京`;

describe('Dynamics catalogue setup', () => {
  it('makes the product columns and key, the unit group with its base unit and a price list per currency, once', async () => {
    sandbox = await startDynamicsSandbox({ keyActivationMs: 50, currencies: ['EUR'] });
    const first = fresh();
    const made = await setUpDynamicsCatalogue(transportFor(sandbox), first, { priceBook: NAME, currencies: ['USD', 'EUR'], keyWaitMs: 10_000 });
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual([
      'product.ccs_commerceproductid',
      'product.ccs_dimensionkey',
      'product.ccs_pricekey',
      'productpricelevel.ccs_priceentrykey',
      'product alternate key ccs_pricekey_key (ccs_pricekey)',
      'productpricelevel alternate key ccs_priceentrykey_key (ccs_priceentrykey)',
      'unit group "Marketplace units" with its base unit "Unit"',
      `price list "${NAME} (USD)"`,
      `price list "${NAME} (EUR)"`,
    ]);
    const api = clientFor(sandbox);
    const lists: any = await api.retrieveMultiple({ collection: 'pricelevels', select: ['name', '_transactioncurrencyid_value'] });
    expect(Object.fromEntries(lists.value.map((row: any) => [row.name, row._transactioncurrencyid_value]))).toEqual({ [`${NAME} (USD)`]: nameGuid('transactioncurrency:USD'), [`${NAME} (EUR)`]: nameGuid('transactioncurrency:EUR') });
    expect(Object.keys(made.priceLists)).toEqual(['USD', 'EUR']);
    const units: any = await api.retrieveMultiple({ collection: 'uoms', select: ['name'], filter: `_uomscheduleid_value eq ${made.unitGroupId}` });
    expect(units.value.map((unit: any) => [unit.uomid, unit.name])).toEqual([[made.baseUnitId, 'Unit']]);
    // The key is usable: a product upserts by ccs_pricekey.
    const key = `ccs_pricekey='${encodeURIComponent("p-1|users")}'`;
    await api.upsert({ collection: 'products', key, data: { name: 'Users', productnumber: 'p-1|users', quantitydecimal: 0, 'defaultuomscheduleid@odata.bind': `/uomschedules(${made.unitGroupId})`, 'defaultuomid@odata.bind': `/uoms(${made.baseUnitId})` } });
    const second = fresh();
    const again = await setUpDynamicsCatalogue(transportFor(sandbox), second, { priceBook: NAME, currencies: ['USD', 'EUR'], keyWaitMs: 10_000 });
    expect(second.created).toEqual([]);
    expect(second.problems).toEqual([]);
    expect(again).toEqual(made);
  });

  it("takes the environment's currencies, its base currency first, when none is named and names a currency the environment lacks as a problem", async () => {
    sandbox = await startDynamicsSandbox({ keyActivationMs: 0, baseCurrency: 'GBP' });
    const report = fresh();
    const made = await setUpDynamicsCatalogue(transportFor(sandbox), report, { priceBook: 'acme', keyWaitMs: 5_000 });
    expect(Object.keys(made.priceLists)).toEqual(['GBP']);
    const other = fresh();
    await setUpDynamicsCatalogue(transportFor(sandbox), other, { priceBook: 'acme', currencies: ['JPY'], keyWaitMs: 5_000 });
    expect(other.problems).toEqual(['price list "acme (JPY)" could not be created: the environment has no JPY currency. Add it (Settings, Business Management, Currencies) and run setup again']);
  });
});
