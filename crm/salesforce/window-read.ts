// Reading a window of changed records ONCE. The first page runs the SOQL query; every later page
// follows the query locator Salesforce handed out (nextRecordsUrl -> queryMore), which reads the result
// the query already found instead of making Salesforce find it again. A fresh sorted query per page
// re-ran the whole filter each time: with a large backlog each one risks QUERY_TIMEOUT (docs/crm-wire-behaviour.md).
// The locator travels with the caller's cursor (it is not a secret); when Salesforce no longer knows it
// (INVALID_QUERY_LOCATOR: expired, released, a worker restarted long after), the read starts afresh
// from the (time, id) position, which the cursor always holds too.
import type { ChangedSinceOptions, CrmRecord, RecordFilter } from '../connector.ts';
import { soqlDateTime, soqlIdentifier, soqlIn, soqlString } from './soql.ts';

export type WindowPage = { records: CrmRecord[]; done: boolean; nextRecordsUrl?: string };

/** The two calls a window read makes; the connector runs them guarded (retries, budget, errors). */
export type WindowCalls = {
  query(soql: string, batchSize: number): Promise<WindowPage>;
  queryMore(locator: string, batchSize: number): Promise<WindowPage>;
};

/** A narrowing declared by a flow, as SOQL: the field checked as an identifier, every value escaped. */
export function filterSoql(filter: RecordFilter): string {
  if ('anyOf' in filter) return `(${filter.anyOf.map(filterSoql).join(' OR ')})`;
  const field = soqlIdentifier(filter.field);
  if ('present' in filter) return `${field} != null`;
  if ('oneOf' in filter) return `${field} IN ${soqlIn(filter.oneOf)}`;
  return `${field} = ${typeof filter.equals === 'boolean' ? String(filter.equals) : soqlString(filter.equals)}`;
}

/**
 * The window's query. Without a position the start is inclusive, a look-back early; with one it is
 * strictly after (stamp, Id). SystemModstamp has whole seconds, so a position compares exactly.
 */
export function windowSoql(object: string, options: ChangedSinceOptions, lookbackMs: number): string {
  const fields = [...new Set(['Id', 'SystemModstamp', ...options.fields])].map(soqlIdentifier).join(', ');
  const start =
    options.afterId === undefined
      ? `SystemModstamp >= ${soqlDateTime(new Date(options.since.getTime() - lookbackMs))}`
      : `(SystemModstamp > ${soqlDateTime(options.since)} OR (SystemModstamp = ${soqlDateTime(options.since)} AND Id > ${soqlString(options.afterId)}))`;
  const end = options.until ? ` AND SystemModstamp <= ${soqlDateTime(options.until)}` : '';
  const narrow = options.narrow ? ` AND ${filterSoql(options.narrow)}` : '';
  return `SELECT ${fields} FROM ${soqlIdentifier(object)} WHERE ${start}${end}${narrow} ORDER BY SystemModstamp ASC, Id ASC`;
}

/** The locator of a nextRecordsUrl (its last path segment, as jsforce keeps it). */
export const locatorOf = (nextRecordsUrl: string | undefined): string | undefined => nextRecordsUrl?.split('/').pop() || undefined;

/** Salesforce's answer for a locator it no longer holds. */
const lostLocator = (error: unknown) => (error as { code?: string }).code === 'INVALID_QUERY_LOCATOR';

export async function* readWindow(calls: WindowCalls, object: string, options: ChangedSinceOptions, lookbackMs: number): AsyncGenerator<CrmRecord[]> {
  const batchSize = options.pageSize ?? 2000;
  let page: WindowPage | undefined;
  if (options.locator) {
    try {
      page = await calls.queryMore(options.locator, batchSize);
    } catch (error) {
      if (!lostLocator(error)) throw error;
    }
  }
  page ??= await calls.query(windowSoql(object, options, lookbackMs), batchSize);
  for (;;) {
    const next = page.done ? undefined : locatorOf(page.nextRecordsUrl);
    // Told before the page is handed out: a reader that takes one page and stops still learns it.
    options.onLocator?.(next);
    if (page.records.length > 0) yield page.records.map(stripAttributes);
    if (!next) return;
    page = await calls.queryMore(next, batchSize);
  }
}

function stripAttributes(record: CrmRecord): CrmRecord {
  const { attributes: _attributes, ...rest } = record as CrmRecord & { attributes?: unknown };
  return rest;
}
