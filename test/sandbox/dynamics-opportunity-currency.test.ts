// Dynamics sandbox (issue #28): an opportunity in its own currency, as Dataverse keeps it
// (docs/crm-wire-behaviour.md, Dynamics "the opportunity's transaction currency"), through dynamics-web-api
// unmodified, on an organization whose base currency is EUR with USD beside it: the transactioncurrencyid
// bind on create and update, read back as _transactioncurrencyid_value with the exchange rate Dataverse sets
// (read-only); an unknown currency is 404; the currency cannot change once the opportunity has products, nor
// be cleared while it has an amount; a price list in another currency is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { nameGuid } from '../../sandbox/dynamics/schema.ts';
import { clientFor } from './dynamics-helpers.ts';

const HOSTILE = `Contrat "Nord" O'Neil \\ 東京 ✓`;
const EUR = nameGuid('transactioncurrency:EUR');
const USD = nameGuid('transactioncurrency:USD');
/** [sandbox] 0.9 euros to the dollar: a dollar is 1/0.9 euros, to 12 places (sandbox/dynamics/catalogue.ts). */
const USD_PER_EUR = 1.111111111111;
const bind = (currency: string) => ({ 'transactioncurrencyid@odata.bind': `/transactioncurrencies(${currency})` });

let sb: DynamicsSandbox;
let api: ReturnType<typeof clientFor>;

beforeAll(async () => {
  sb = await startDynamicsSandbox({ keyActivationMs: 0, baseCurrency: 'EUR', currencies: ['USD'] });
  api = clientFor(sb);
});
afterAll(async () => sb.stop());

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return error as any;
  }
  throw new Error('expected a failure');
};
const opportunity = async (data: Record<string, unknown>) => String(await api.create({ collection: 'opportunities', data: { name: HOSTILE, ...data } }));
const read = (id: string) => api.retrieve({ collection: 'opportunities', key: id, select: ['name', '_transactioncurrencyid_value', 'exchangerate'] }) as Promise<any>;

describe('Dynamics sandbox: an opportunity\'s own currency', () => {
  it('takes a transaction currency bind on create and update, with the exchange rate against the base currency (read-only)', async () => {
    const inDollars = await opportunity({ ...bind(USD), exchangerate: 5 });
    expect(await read(inDollars)).toMatchObject({ name: HOSTILE, _transactioncurrencyid_value: USD, exchangerate: USD_PER_EUR });
    const unset = await opportunity({});
    expect(await read(unset)).toMatchObject({ _transactioncurrencyid_value: null });
    await api.update({ collection: 'opportunities', key: unset, data: bind(EUR) });
    expect(await read(unset)).toMatchObject({ _transactioncurrencyid_value: EUR, exchangerate: 1 });
    // The seller's filter by currency finds it.
    const found: any = await api.retrieveMultiple({ collection: 'opportunities', select: ['name'], filter: `_transactioncurrencyid_value eq ${USD}` });
    expect(found.value.map((row: any) => row.opportunityid)).toEqual([inDollars]);
  });

  it('refuses a currency the organization does not have (404 0x80040217)', async () => {
    const unknown = '0b0b0b0b-0000-4000-8000-000000000001';
    const refused = await errorOf(opportunity(bind(unknown)));
    expect([refused.status, refused.code]).toEqual([404, '0x80040217']);
  });

  it('keeps the currency of an opportunity with products, changes one without, and refuses to clear it while it has an amount (0x80048cfb)', async () => {
    const withLine = await opportunity({ ...bind(USD), estimatedvalue: 1200 });
    await api.create({ collection: 'opportunityproducts', data: { 'opportunityid@odata.bind': `/opportunities(${withLine})`, productdescription: 'Workshop', quantity: 1, priceperunit: 1200 } });
    const changed = await errorOf(api.update({ collection: 'opportunities', key: withLine, data: bind(EUR) }));
    expect([changed.status, changed.message]).toEqual([400, 'The currency cannot be changed because the opportunity has opportunity products, quotes, orders, or invoices associated with it. Remove the associated records and then change the currency.']);
    // The same currency again is no change.
    await api.update({ collection: 'opportunities', key: withLine, data: bind(USD) });
    expect(await read(withLine)).toMatchObject({ _transactioncurrencyid_value: USD, exchangerate: USD_PER_EUR });
    // Without products the currency changes, but it is not cleared while the opportunity has an amount.
    const withAmount = await opportunity({ ...bind(USD), estimatedvalue: 900 });
    await api.update({ collection: 'opportunities', key: withAmount, data: bind(EUR) });
    expect(await read(withAmount)).toMatchObject({ _transactioncurrencyid_value: EUR, exchangerate: 1 });
    const cleared = await errorOf(api.update({ collection: 'opportunities', key: withAmount, data: { 'transactioncurrencyid@odata.bind': null } }));
    expect([cleared.status, cleared.code, cleared.message]).toEqual([400, '0x80048cfb', 'The currency cannot be null.']);
  });

  it('refuses a price list in another currency than the opportunity\'s (0x80048cf6)', async () => {
    const euros = String(await api.create({ collection: 'pricelevels', data: { name: `${HOSTILE} (EUR)`, ...bind(EUR) } }));
    const refused = await errorOf(opportunity({ ...bind(USD), 'pricelevelid@odata.bind': `/pricelevels(${euros})` }));
    expect([refused.status, refused.code, refused.message]).toEqual([400, '0x80048cf6', 'The currency of the record does not match the currency of the price list.']);
    const inEuros = await opportunity({ ...bind(EUR), 'pricelevelid@odata.bind': `/pricelevels(${euros})` });
    expect(await read(inEuros)).toMatchObject({ _transactioncurrencyid_value: EUR, exchangerate: 1 });
  });
});
