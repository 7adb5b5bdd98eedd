// The organization row and its currencies, read-only (issue #25 section 5): GET organizations answers
// the one row of the organization with `_basecurrencyid_value`, the GUID of its base currency (the
// currency every amount is also kept in, and that of an opportunity without a transaction currency),
// and GET transactioncurrencies / transactioncurrencies(<guid>) answer the currency rows with their
// `isocurrencycode` (Microsoft's "Transaction currency (currency) table": docs/crm-wire-behaviour.md).
// Only GET, and `$select` of these columns, are modelled. The base currency is a start option
// (`baseCurrency`, default USD); POST /_sandbox/currencies `{base}` sets it, for a test that needs an
// organization made with another one (a real organization's base currency is fixed when it is made).
import { DataverseError, odataError } from './errors.ts';
import { json, type ApiRequest, type Reply } from './http.ts';
import type { KeySpec } from './keys.ts';
import { nameGuid } from './schema.ts';

const ISO_CODE = /^[A-Z]{3}$/;
const NAMES: Record<string, string> = { USD: 'US Dollar', EUR: 'Euro', GBP: 'Pound Sterling', JPY: 'Yen', CHF: 'Swiss Franc', SEK: 'Swedish Krona' };

type CurrencyRow = { transactioncurrencyid: string; isocurrencycode: string; currencyname: string; currencysymbol: string; createdon: string; modifiedon: string; versionnumber: number; statecode: number; statuscode: number };

const rowFor = (code: string): CurrencyRow => ({ transactioncurrencyid: nameGuid(`transactioncurrency:${code}`), isocurrencycode: code, currencyname: NAMES[code] ?? code, currencysymbol: code, createdon: '2020-01-01T00:00:00Z', modifiedon: '2020-01-01T00:00:00Z', versionnumber: 1, statecode: 0, statuscode: 1 });

/** A base currency option checked before anything starts: an ISO 4217 code. */
export function baseCurrencySetting(code: string | undefined): string {
  if (code === undefined) return 'USD';
  if (!ISO_CODE.test(code)) throw new Error(`Dynamics sandbox: baseCurrency must be an ISO 4217 code (three capital letters), not ${JSON.stringify(code)}`);
  return code;
}

/** `others`: the organisation's other transaction currencies (issue #28: a price list per currency), ISO codes. */
export function createCurrencies(base: string, others: readonly string[] = []) {
  const rows = new Map<string, CurrencyRow>();
  const add = (code: string) => {
    const row = rowFor(code);
    rows.set(row.transactioncurrencyid, row);
    return row;
  };
  let baseRow = add(base);
  for (const code of others) add(baseCurrencySetting(code));
  return {
    base: () => baseRow,
    setBase(code: string) {
      baseRow = add(code);
    },
    byId: (guid: string) => rows.get(guid.toLowerCase()),
    all: () => [...rows.values()],
  };
}

export type Currencies = ReturnType<typeof createCurrencies>;

/** The columns `$select` names, or undefined for all. */
function selected(req: ApiRequest): string[] | undefined {
  const select = new URLSearchParams(req.query).get('$select');
  return select ? select.split(',').map((column) => column.trim()).filter(Boolean) : undefined;
}

function pick(row: Record<string, unknown>, columns: string[] | undefined, table: string, idColumn: string): Record<string, unknown> {
  if (!columns) return { ...row };
  const out: Record<string, unknown> = { [idColumn]: row[idColumn] };
  for (const column of columns) {
    if (!(column in row)) throw odataError(`Could not find a property named '${column}' on type 'Microsoft.Dynamics.CRM.${table}'.`);
    out[column] = row[column];
  }
  return out;
}

const onlyGet = (req: ApiRequest, what: string) => {
  if (req.method !== 'GET') throw new DataverseError(405, '0x80060888', `The Dynamics sandbox models reading ${what} only, not ${req.method}.`);
};

/** GET organizations: the organization's one row. */
export function handleOrganizations(req: ApiRequest, key: KeySpec | undefined, rest: string): Reply {
  onlyGet(req, 'organizations');
  if (key || rest) throw odataError('The Dynamics sandbox models GET organizations (the collection, with $select) only.');
  const tenant = req.state.config.credentials.tenantId;
  const row = { organizationid: nameGuid(`org:${tenant}`), name: 'Sandbox organization', _basecurrencyid_value: req.state.currencies.base().transactioncurrencyid };
  return json(200, { '@odata.context': `${req.base}$metadata#organizations`, value: [{ '@odata.etag': 'W/"1"', ...pick(row, selected(req), 'organization', 'organizationid') }] });
}

/** GET transactioncurrencies and transactioncurrencies(<guid>). */
export function handleTransactionCurrencies(req: ApiRequest, key: KeySpec | undefined, rest: string): Reply {
  onlyGet(req, 'transactioncurrencies');
  if (rest) throw odataError('The Dynamics sandbox models GET transactioncurrencies and transactioncurrencies(<guid>) only.');
  const columns = selected(req);
  if (!key) return json(200, { '@odata.context': `${req.base}$metadata#transactioncurrencies`, value: req.state.currencies.all().map((row) => ({ '@odata.etag': 'W/"1"', ...pick(row, columns, 'transactioncurrency', 'transactioncurrencyid') })) });
  if (!('guid' in key)) throw odataError('transactioncurrencies are read by their GUID only in the Dynamics sandbox.');
  const row = req.state.currencies.byId(key.guid);
  if (!row) throw new DataverseError(404, '0x80040217', `transactioncurrency With Id = ${key.guid} Does Not Exist`);
  return json(200, { '@odata.context': `${req.base}$metadata#transactioncurrencies/$entity`, '@odata.etag': 'W/"1"', ...pick(row, columns, 'transactioncurrency', 'transactioncurrencyid') });
}
