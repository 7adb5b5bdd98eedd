// Reads through HubSpot's search: changed records by hs_lastmodifieddate with a (modified time, id)
// cursor, and records whose property holds one of some values. Every value goes in a filter as a typed
// value (never spliced into a query text). A read of changed records restarts its query from the last
// record read after every page, as HubSpot's `after` is an offset into a result set that moves when
// records change (issue #22 item 2), and never relies on the order of records tied in the sort, which
// HubSpot does not promise (it takes one sorting rule only): a time shared by a whole page is read in
// hs_object_id order. At most two filter groups of three filters, well inside search's limits.
//
// Two more of the search guide's rules (docs/crm-wire-behaviour.md, HubSpot, Search): a request body of
// more than 3,000 characters is refused with a 400, so every body is measured before it is sent (an IN
// read splits its values by it); and IN on a string property takes its values in lower case ("the
// searched values must be lowercase"), while an enumeration compares with case.
import { CrmError, type CrmRecord } from '../connector.ts';
import type { HubSpotTransport } from './transport.ts';

/** Search's own ceilings: 200 records a page, 10,000 results a query, 100 values in an IN filter. */
export const SEARCH_PAGE = 200;
export const SEARCH_CEILING = 10_000;
const IN_VALUES = 100;
/** "If the body of your request exceeds 3,000 characters, a 400 error will be returned" (the search guide). */
export const MAX_SEARCH_BODY = 3000;

export type Filter = { propertyName: string; operator: string; value?: string; values?: string[]; highValue?: string };
type SearchAnswer = { total: number; results: { id: string; properties: Record<string, string | null> }[]; paging?: { next?: { after: string } } };

export const STAMP = 'hs_lastmodifieddate';
export const ID = 'hs_object_id';

export type Cursor = { time: Date; afterId?: string };

export function createSearch(transport: HubSpotTransport) {
  /** One search request; `sortBy` ascending is its one sorting rule (search takes no second). */
  async function search(object: string, filterGroups: { filters: Filter[] }[], properties: string[], limit: number, after: number, sortBy: string | undefined, signal?: AbortSignal): Promise<SearchAnswer> {
    const request = searchRequest(filterGroups, properties, limit, after, sortBy);
    // The reads below keep within the limit; this is the last guard against a 400 that retrying cannot cure.
    if (bodySize(request) > MAX_SEARCH_BODY) throw tooLong(object, properties, bodySize(request));
    return (await transport.call(`searching ${object}`, (client) => client.crm.objects.searchApi.doSearch(object, request as never), { search: true, signal })) as SearchAnswer;
  }

  /** The filter groups of a window from a cursor: (t = since AND id > afterId) OR t > since, each up to `until`. */
  function windowGroups(cursor: Cursor, until?: Date): { filters: Filter[] }[] {
    const end: Filter[] = until ? [{ propertyName: STAMP, operator: 'LTE', value: String(until.getTime()) }] : [];
    const at = String(cursor.time.getTime());
    if (cursor.afterId === undefined) return [{ filters: [{ propertyName: STAMP, operator: 'GTE', value: at }, ...end] }];
    return [
      { filters: [{ propertyName: STAMP, operator: 'EQ', value: at }, { propertyName: ID, operator: 'GT', value: cursor.afterId }, ...end] },
      { filters: [{ propertyName: STAMP, operator: 'GT', value: at }, ...end] },
    ];
  }

  return {
    /**
     * Records changed from `start` (inclusive, or strictly after its id) to `until`, `pageSize` at a time,
     * each page ending on the record to resume from: the sync activities read one page a call and go on
     * from its last record's (modified time, id), and take a short page for the end of the window.
     *
     * Every page is the first page of a query restarted from that position, sorted by modified time:
     * HubSpot's `after` is an offset into a result set it evaluates again at every request, so a record
     * edited between two pages would shift every later offset. Search takes only one sorting rule and
     * promises no order among records of equal modified time, so the last modified time of a full page
     * may have more records than the page shows, in any order: those records go at the head of the page
     * and the page ends on the last record before them, whose (time, id) is a true position (every record
     * at or before it has been read); the next query reads that time again (its records already handed
     * out in this read are skipped). When a whole page shares one modified time, that time is read by
     * hs_object_id, a total order (`= time AND hs_object_id > last id`), then the read goes on after it.
     */
    async *changed(object: string, start: Cursor, until: Date | undefined, properties: string[], pageSize: number, signal?: AbortSignal, narrow?: Filter[][]): AsyncGenerator<Found[]> {
      const limit = Math.min(SEARCH_PAGE, Math.max(1, pageSize));
      const wanted = [...new Set([...properties, STAMP, ID])];
      let position = start;
      // Records handed out ahead of the position in this read (id -> modified time), skipped when read
      // again unchanged; a record edited since has a new time and is news.
      const ahead = new Map<string, number>();
      const fresh = (records: Found[]) => records.filter((record) => ahead.get(idOf(record)) !== stampOf(record));
      const moveTo = (next: Cursor) => {
        position = next;
        for (const [id, time] of ahead) if (time < next.time.getTime()) ahead.delete(id);
      };
      for (;;) {
        const answer = await search(object, narrowed(windowGroups(position, until), narrow, fitsBody(wanted, limit, STAMP)), wanted, limit, 0, STAMP, signal);
        const found = [...(answer.results ?? [])].sort(byStampThenId);
        if (found.length === 0) return;
        if (!answer.paging?.next?.after) {
          // The rest of the window is all here.
          const rest = fresh(found);
          if (rest.length) yield rest;
          return;
        }
        const edge = stampOf(found.at(-1)!);
        const settled = found.filter((record) => stampOf(record) < edge);
        if (settled.length) {
          const before = fresh(settled);
          moveTo(cursorOf(settled.at(-1)!));
          if (before.length === 0) continue; // all handed out already: the edge's records come again next
          const atEdge = fresh(found.filter((record) => stampOf(record) === edge));
          for (const record of atEdge) ahead.set(idOf(record), edge);
          yield [...atEdge, ...before];
          continue;
        }
        // A whole page of one modified time: that time in id order, strictly after the position's id there.
        let afterId = position.time.getTime() === edge ? position.afterId : undefined;
        for (;;) {
          const filters: Filter[] = [{ propertyName: STAMP, operator: 'EQ', value: String(edge) }, ...(afterId === undefined ? [] : [{ propertyName: ID, operator: 'GT', value: afterId }])];
          const drained = await search(object, narrowed([{ filters }], narrow, fitsBody(wanted, limit, ID)), wanted, limit, 0, ID, signal);
          const page = [...(drained.results ?? [])].sort((a, b) => Number(idOf(a)) - Number(idOf(b)));
          if (page.length) afterId = idOf(page.at(-1)!);
          const unread = fresh(page);
          if (unread.length) yield unread;
          if (!drained.paging?.next?.after) break;
        }
        // Every record of that time is read: on from its last id (new ones with a higher id still come).
        if (afterId === undefined) throw new Error(`HubSpot's search found a page of ${object} modified at ${new Date(edge).toISOString()}, then none when asked for them by hs_object_id; the read stops here and starts again from its last position.`);
        moveTo({ time: new Date(edge), afterId });
      }
    },

    /**
     * Every record whose `property` holds one of `values`, as HubSpot compares them: a string property
     * (`type` 'string') without case, its values sent in lower case as IN requires (the caller pairs
     * records with values by the stored text, without case); an enumeration and other types as given.
     * Values go in as many searches as it takes for each body to hold at most 100 values and 3,000
     * characters (properties and a paging cursor counted).
     */
    async whereIn(object: string, property: string, values: string[], properties: string[], signal?: AbortSignal, type?: string) {
      const found: { id: string; properties: Record<string, string | null> }[] = [];
      const unique = [...new Set(type === 'string' ? values.map((value) => value.toLowerCase()) : values)];
      const wanted = [...new Set([...properties, property, ID])];
      const groups = (chunk: string[]) => [{ filters: [{ propertyName: property, operator: 'IN', values: chunk }] }];
      for (const chunk of inValueChunks(object, property, unique, (chunk) => bodySize(searchRequest(groups(chunk), wanted, SEARCH_PAGE, SEARCH_CEILING, undefined)), wanted)) {
        let after = 0;
        for (;;) {
          const answer = await search(object, groups(chunk), wanted, SEARCH_PAGE, after, undefined, signal);
          found.push(...(answer.results ?? []));
          if (!answer.paging?.next?.after || after + 2 * SEARCH_PAGE > SEARCH_CEILING) break;
          after = Number(answer.paging.next.after);
        }
      }
      return found;
    },
  };
}

type Found = { id: string; properties: Record<string, string | null> };

/** Search's filter limits, the stricter of HubSpot's two statements (docs/crm-wire-behaviour.md). */
const MAX_GROUPS = 5;
const MAX_FILTERS_IN_GROUP = 6;
const MAX_FILTERS = 18;

/**
 * A window's groups, each ANDed with every alternative of a narrowing (crm/hubspot/record-filter.ts):
 * (window AND alternative 1) OR (window AND alternative 2) ... When that passes search's limits (a
 * position's two window groups times three alternatives is six groups), the window is read unnarrowed:
 * the flows still decide record by record.
 */
export function narrowed(groups: { filters: Filter[] }[], alternatives: Filter[][] | undefined, bodyFits: (groups: { filters: Filter[] }[]) => boolean = () => true): { filters: Filter[] }[] {
  if (!alternatives?.length) return groups;
  const crossed = groups.flatMap((group) => alternatives.map((alternative) => ({ filters: [...group.filters, ...alternative] })));
  const total = crossed.reduce((sum, group) => sum + group.filters.length, 0);
  const fits = crossed.length <= MAX_GROUPS && total <= MAX_FILTERS && crossed.every((group) => group.filters.length <= MAX_FILTERS_IN_GROUP);
  return fits && bodyFits(crossed) ? crossed : groups;
}

type SearchRequest = { filterGroups: { filters: Filter[] }[]; sorts: { propertyName: string; direction: 'ASCENDING' }[]; properties: string[]; limit: number; after?: string };

/** The body of one search, as @hubspot/api-client sends it (the same keys and values; its own key order). */
function searchRequest(filterGroups: { filters: Filter[] }[], properties: string[], limit: number, after: number, sortBy: string | undefined): SearchRequest {
  return {
    filterGroups,
    sorts: sortBy ? [{ propertyName: sortBy, direction: 'ASCENDING' }] : [],
    properties,
    limit,
    // No `after` for a first page: the query starts at its first result.
    ...(after > 0 ? { after: String(after) } : {}),
  };
}

/**
 * A body's size as HubSpot may count its "characters": its UTF-8 bytes, which are never fewer than its
 * characters however counted (code points or UTF-16 units), so a body kept to 3,000 bytes is accepted
 * whichever HubSpot counts [inf: the guide does not say]. JSON escapes (a quote as \") are counted too.
 */
export function bodySize(request: SearchRequest): number {
  return Buffer.byteLength(JSON.stringify(request), 'utf8');
}

/** Whether a read's body with these groups keeps within the limit (a narrowing that does not is left out). */
function fitsBody(properties: string[], limit: number, sortBy: string) {
  return (groups: { filters: Filter[] }[]) => bodySize(searchRequest(groups, properties, limit, 0, sortBy)) <= MAX_SEARCH_BODY;
}

/**
 * `values` split into IN lists of at most 100 values whose search body (`sizeOf`) keeps within 3,000
 * characters, in order. A value that cannot fit even alone is an error naming it (never a 400 at run time).
 */
function inValueChunks(object: string, property: string, values: string[], sizeOf: (chunk: string[]) => number, properties: string[]): string[][] {
  const empty = sizeOf([]);
  // The shortest value ("") would still not fit: the properties asked for are too many.
  if (empty + 2 > MAX_SEARCH_BODY) throw tooLong(object, properties, empty + 2);
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let size = empty;
  for (const value of values) {
    const text = Buffer.byteLength(JSON.stringify(value), 'utf8');
    // One more value adds its JSON text and, after the first, a comma.
    if (chunk.length && (chunk.length === IN_VALUES || size + 1 + text > MAX_SEARCH_BODY)) {
      chunks.push(chunk);
      chunk = [];
      size = empty;
    }
    if (empty + text > MAX_SEARCH_BODY) {
      throw new CrmError(
        `HubSpot refuses a search request longer than ${MAX_SEARCH_BODY} characters, and finding ${object} by ${property} "${clip(value, 40)}" (a value of ${value.length} characters) takes ${empty + text}: that value cannot be looked up in HubSpot. Shorten it on the commerce side.`,
        { code: 'SEARCH_TOO_LONG', retryable: false },
      );
    }
    size += (chunk.length ? 1 : 0) + text;
    chunk.push(value);
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}…` : text);

/** The error for a search whose properties alone make its body too long. */
function tooLong(object: string, properties: string[], size: number): CrmError {
  return new CrmError(
    `HubSpot refuses a search request longer than ${MAX_SEARCH_BODY} characters, and reading ${object} with the ${properties.length} properties asked for (${clip(properties.join(', '), 200)}) makes a request of ${size}: read fewer properties (the connection's mapped fields) so the search fits.`,
    { code: 'SEARCH_TOO_LONG', retryable: false },
  );
}

/** hs_lastmodifieddate as epoch milliseconds: HubSpot answers ISO 8601 text with milliseconds. */
function stampOf(record: Found): number {
  const text = record.properties[STAMP] ?? '';
  return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
}

function idOf(record: Found): string {
  return String(record.properties[ID] ?? record.id);
}

/** The position a record stands at: its modified time and id. */
function cursorOf(record: Found): Cursor {
  return { time: new Date(stampOf(record)), afterId: idOf(record) };
}

function byStampThenId(a: Found, b: Found): number {
  const time = stampOf(a) - stampOf(b);
  if (time !== 0) return time;
  return Number(idOf(a)) - Number(idOf(b));
}

export type SearchRecord = CrmRecord;
