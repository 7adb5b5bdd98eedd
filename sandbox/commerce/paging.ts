// Paging of §8 and A5: query endpoints take page_size/page_number and answer an envelope with a
// capped total_count; list endpoints take limit/offset and answer a bare array.
import { badRequest } from './errors.ts';
import { compileFilter } from './filter-eval.ts';
import { FilterSyntaxError, parseFilter } from './filter-parser.ts';
import { parseSort, sortRows, SortSyntaxError } from './sort.ts';

const INTEGER = /^\d+$/;

function integerParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = INTEGER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw badRequest(`${name} must be an integer ${range}, got ${JSON.stringify(raw)}`, { parameter: name });
  }
  return value;
}

export type ListPage = { limit: number; offset: number };

export function listPaging(query: URLSearchParams): ListPage {
  return {
    limit: integerParam(query, 'limit', 1000, 1, 1000),
    offset: integerParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
}

export function pageOf<T>(rows: readonly T[], page: ListPage): T[] {
  return rows.slice(page.offset, page.offset + page.limit);
}

/** Parses `q` and `s` into a predicate and sort keys, turning syntax errors into 400s. */
export function filterAndSortParams(query: URLSearchParams) {
  const q = query.get('q');
  let predicate;
  try {
    predicate = compileFilter(q === null ? undefined : parseFilter(q));
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw badRequest(`q: ${error.message}`, { parameter: 'q', position: error.position });
    throw error;
  }
  let sort;
  try {
    sort = parseSort(query.get('s'));
  } catch (error) {
    if (error instanceof SortSyntaxError) throw badRequest(error.message, { parameter: 's' });
    throw error;
  }
  return { predicate, sort };
}

export type QueryEnvelope<T> = { data: T[]; page_number: number; page_size: number; total_count: number; total_count_capped?: true };

/** A whole query endpoint over `rows`: filter, sort, page and count up to `cap` (§2.9). */
export function runQuery<T extends { id: string }>(rows: readonly T[], query: URLSearchParams, cap: number): QueryEnvelope<T> {
  const pageSize = integerParam(query, 'page_size', 20, 1, 1000);
  const pageNumber = integerParam(query, 'page_number', 1, 1, Number.MAX_SAFE_INTEGER);
  const { predicate, sort } = filterAndSortParams(query);
  const matched = rows.filter((row) => predicate(row));
  const sorted = sortRows(matched, sort);
  const start = (pageNumber - 1) * pageSize;
  const envelope: QueryEnvelope<T> = {
    data: sorted.slice(start, start + pageSize),
    page_number: pageNumber,
    page_size: pageSize,
    // Counted up to the cap; the flag says the real total is larger (§2.9).
    total_count: Math.min(matched.length, cap),
  };
  if (matched.length > cap) envelope.total_count_capped = true;
  return envelope;
}
