// The three paging styles of the API (§2.9, §8) as async iterators of pages. Each page carries the
// records that parsed and those that did not (with the reason), so one bad row never stops the rest.
// Iteration stops at the first short page, or when an exact total_count is reached; a capped
// total_count (§8) is only a lower bound and is never trusted to stop.
import { parseRecord, type ResourceName, type ResourceType } from './models.ts';
import type { CommerceRecordError } from './errors.ts';

export const MAX_PAGE_SIZE = 1000;

export type Rejected = { raw: unknown; error: CommerceRecordError };

export type Page<T> = {
  records: T[];
  rejected: Rejected[];
  /** Query endpoints: 1-based page number. List endpoints: the offset of the first row. */
  position: number;
  /** Query endpoints: total_count, a lower bound when totalCountCapped. Events: totalCount at offset 0. */
  totalCount?: number;
  totalCountCapped?: boolean;
};

export type Fetch = (query: Record<string, string | number | undefined>) => Promise<unknown>;

function split<R extends ResourceName>(resource: R, rows: unknown[]): Pick<Page<ResourceType[R]>, 'records' | 'rejected'> {
  const records: ResourceType[R][] = [];
  const rejected: Rejected[] = [];
  for (const row of rows) {
    const parsed = parseRecord(resource, row);
    if (parsed.ok) records.push(parsed.record);
    else rejected.push({ raw: parsed.raw, error: parsed.error });
  }
  return { records, rejected };
}

function checkSize(name: string, size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new RangeError(`${name} must be a whole number from 1 to ${MAX_PAGE_SIZE}; got ${size}`);
  return size;
}

function expectArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`Expected ${what} to be a JSON array; got ${value === null ? 'null' : typeof value}`);
  return value;
}

/** Query endpoints: {data, page_number, page_size, total_count, total_count_capped}. */
export async function* queryPages<R extends ResourceName>(resource: R, fetchPage: Fetch, options: { pageSize?: number; q?: string; s?: string; startPage?: number } = {}): AsyncGenerator<Page<ResourceType[R]>> {
  const pageSize = checkSize('page_size', options.pageSize ?? MAX_PAGE_SIZE);
  for (let pageNumber = options.startPage ?? 1; ; pageNumber += 1) {
    const body = (await fetchPage({ page_size: pageSize, page_number: pageNumber, q: options.q, s: options.s })) as {
      data?: unknown;
      total_count?: number;
      total_count_capped?: boolean;
    };
    const rows = expectArray(body?.data ?? [], `the data of ${resource} query page ${pageNumber}`);
    const capped = body?.total_count_capped === true;
    yield { ...split(resource, rows), position: pageNumber, totalCount: body?.total_count, totalCountCapped: capped };
    if (rows.length < pageSize) return;
    // An exact (uncapped) total saves asking for an empty page after a full last one.
    if (!capped && typeof body?.total_count === 'number' && pageNumber * pageSize >= body.total_count) return;
  }
}

/** List endpoints: a JSON array, limit and offset. */
export async function* listPages<R extends ResourceName>(resource: R, fetchPage: Fetch, options: { limit?: number; offset?: number } = {}): AsyncGenerator<Page<ResourceType[R]>> {
  const limit = checkSize('limit', options.limit ?? MAX_PAGE_SIZE);
  for (let offset = options.offset ?? 0; ; offset += limit) {
    const rows = expectArray(await fetchPage({ limit, offset }), `the ${resource} list at offset ${offset}`);
    yield { ...split(resource, rows), position: offset };
    if (rows.length < limit) return;
  }
}

/** Notification events: {notificationEvents, nextOffset, totalCount}; no nextOffset means the end. */
export async function* eventPages(fetchPage: Fetch, options: { limit?: number; offset?: number } = {}): AsyncGenerator<Page<ResourceType['notificationEvent']> & { nextOffset?: number }> {
  const limit = checkSize('limit', options.limit ?? MAX_PAGE_SIZE);
  let offset: number | undefined = options.offset ?? 0;
  while (offset !== undefined) {
    const body = (await fetchPage({ limit, offset })) as { notificationEvents?: unknown; nextOffset?: number; totalCount?: number };
    const rows = expectArray(body?.notificationEvents ?? [], `the notification events at offset ${offset}`);
    const nextOffset: number | undefined = typeof body?.nextOffset === 'number' ? body.nextOffset : undefined;
    yield { ...split('notificationEvent', rows), position: offset, totalCount: body?.totalCount, nextOffset };
    // Guard against a server that repeats an offset: that would loop forever.
    if (nextOffset !== undefined && nextOffset <= offset) throw new Error(`The notification event feed returned nextOffset ${nextOffset} after offset ${offset}`);
    offset = nextOffset;
  }
}
