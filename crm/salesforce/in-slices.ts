// Slicing a look-up by value (SOQL IN) into requests that fit. jsforce sends every query as
// GET <instance>/services/data/vXX.X/query?q=<encodeURIComponent(soql)> (lib/query.js; it never
// switches to POST), and undici's URL parser percent-encodes the quote (') on top. Salesforce refuses
// a URI past 16,384 bytes with 414 and URI plus headers past it with 431, as a page rather than JSON
// (docs/crm-wire-behaviour.md). Counting values is not enough: one e-mail address or external id can
// encode to hundreds of bytes (quotes, %, &, +, non-ASCII). So slices are cut by the encoded length,
// still at most 200 values each.
import { soqlString } from './soql.ts';

/** Salesforce's cap on a request's URI and headers together. */
export const SALESFORCE_URI_AND_HEADERS_LIMIT = 16_384;
/**
 * What the query URI may take of it: the rest is for the headers (a bearer token of about 112
 * bytes, Sforce-Query-Options, Host, User-Agent, Accept: well under 1 KB) with room to spare for a
 * proxy's own, and for the instance URL's path before `?q=`.
 */
export const QUERY_URI_BUDGET = 12_000;
const PATH_ALLOWANCE = 256;
export const MAX_IN_VALUES = 200;

/** Bytes `text` takes in the query string as undici sends it. */
export function encodedLength(text: string): number {
  return new URL(`http://x/?q=${encodeURIComponent(text)}`).search.length - 3;
}

/**
 * Cuts `values` into slices whose SOQL (`build(slice)`) encodes within the budget, at most `maxValues`
 * each. A value that cannot fit even alone is refused by name of the field, never sent.
 */
export function inSlices(values: string[], build: (slice: string[]) => string, field: string, options: { budget?: number; maxValues?: number } = {}): string[][] {
  const budget = (options.budget ?? QUERY_URI_BUDGET) - PATH_ALLOWANCE;
  const maxValues = options.maxValues ?? MAX_IN_VALUES;
  if (values.length === 0) return [];
  // A lone UTF-16 surrogate is no text a URI can carry (encodeURIComponent throws URIError): refused by name.
  const encodedValue = (value: string): number => {
    try {
      return encodedLength(soqlString(value));
    } catch (error) {
      if (!(error instanceof URIError)) throw error;
      throw new Error(`A ${field} value cannot be looked up in Salesforce: it is not valid text (it holds a lone UTF-16 surrogate, which no URL can carry). The value begins ${JSON.stringify(value.slice(0, 40))}.`);
    }
  };
  // Encoding is per character, so a query's length is its frame plus each value and separator.
  const separator = encodedLength(', ');
  const firstCost = encodedValue(values[0]!);
  const frame = encodedLength(build([values[0]!])) - firstCost;
  const slices: string[][] = [];
  let slice: string[] = [];
  let length = frame;
  for (const value of values) {
    const cost = encodedValue(value);
    if (frame + cost > budget) {
      throw new Error(`A ${field} value is too long to look up in Salesforce: its query would pass the ${SALESFORCE_URI_AND_HEADERS_LIMIT.toLocaleString('en')}-byte limit on a request's URI (${(frame + cost).toLocaleString('en')} bytes URL-encoded). The value begins ${JSON.stringify(value.slice(0, 40))}.`);
    }
    const added = cost + (slice.length > 0 ? separator : 0);
    if (slice.length === maxValues || length + added > budget) {
      slices.push(slice);
      slice = [];
      length = frame;
    }
    length += cost + (slice.length > 0 ? separator : 0);
    slice.push(value);
  }
  slices.push(slice);
  return slices;
}
