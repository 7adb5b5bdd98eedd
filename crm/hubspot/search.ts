// Reads through HubSpot's search: changed records by hs_lastmodifieddate with a (modified time, id)
// cursor, and records whose property holds one of some values. Every value goes in a filter as a typed
// value (never spliced into a query text). A read of changed records restarts its query from the last
// record read after every page, as HubSpot's `after` is an offset into a result set that moves when
// records change (issue #22 item 2); two filter groups of at most three filters each, well inside
// search's limits (5 groups, 25 filters).
import type { CrmRecord } from '../connector.ts';
import type { HubSpotTransport } from './transport.ts';

/** Search's own ceilings: 200 records a page, 10,000 results a query, 100 values in an IN filter. */
export const SEARCH_PAGE = 200;
export const SEARCH_CEILING = 10_000;
const IN_VALUES = 100;

type Filter = { propertyName: string; operator: string; value?: string; values?: string[]; highValue?: string };
type SearchAnswer = { total: number; results: { id: string; properties: Record<string, string | null> }[]; paging?: { next?: { after: string } } };

export const STAMP = 'hs_lastmodifieddate';
export const ID = 'hs_object_id';

export type Cursor = { time: Date; afterId?: string };

export function createSearch(transport: HubSpotTransport) {
  async function search(object: string, filterGroups: { filters: Filter[] }[], properties: string[], limit: number, after: number, sorted: boolean, signal?: AbortSignal): Promise<SearchAnswer> {
    return (await transport.call(
      `searching ${object}`,
      (client) =>
        client.crm.objects.searchApi.doSearch(object, {
          filterGroups: filterGroups as never,
          sorts: sorted ? ([{ propertyName: STAMP, direction: 'ASCENDING' }] as never) : [],
          properties,
          limit,
          // No `after` for a first page: the query starts at its first result.
          ...(after > 0 ? { after: String(after) } : {}),
        }),
      { search: true, signal },
    )) as SearchAnswer;
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
     * Records changed from `start` (inclusive, or strictly after its id) to `until`, oldest first by
     * (modified time, id), `pageSize` at a time. HubSpot's `after` is an offset into a result set it
     * evaluates again at every request: a record edited between two pages leaves the window (or moves
     * to its end) and every later offset shifts, so the record at the seam would never be read. Each
     * page is therefore the first page of a query restarted from the last record read; the 10,000-result
     * ceiling, which bounds `after`, is never reached.
     */
    async *changed(object: string, start: Cursor, until: Date | undefined, properties: string[], pageSize: number, signal?: AbortSignal): AsyncGenerator<{ id: string; properties: Record<string, string | null> }[]> {
      const limit = Math.min(SEARCH_PAGE, Math.max(1, pageSize));
      const wanted = [...new Set([...properties, STAMP, ID])];
      let position = start;
      for (;;) {
        const answer = await search(object, windowGroups(position, until), wanted, limit, 0, true, signal);
        const page = [...(answer.results ?? [])].sort(byStampThenId);
        if (page.length === 0) return;
        const last = page.at(-1)!;
        position = { time: new Date(stampOf(last)), afterId: String(last.properties[ID] ?? last.id) };
        yield page;
        if (!answer.paging?.next?.after) return;
      }
    },

    /** Every record whose `property` holds one of `values` (exactly; HubSpot compares text without case). */
    async whereIn(object: string, property: string, values: string[], properties: string[], signal?: AbortSignal) {
      const found: { id: string; properties: Record<string, string | null> }[] = [];
      const unique = [...new Set(values)];
      for (let start = 0; start < unique.length; start += IN_VALUES) {
        const chunk = unique.slice(start, start + IN_VALUES);
        let after = 0;
        for (;;) {
          const answer = await search(object, [{ filters: [{ propertyName: property, operator: 'IN', values: chunk }] }], [...new Set([...properties, property, ID])], SEARCH_PAGE, after, false, signal);
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

/** hs_lastmodifieddate as epoch milliseconds: HubSpot answers ISO 8601 text with milliseconds. */
function stampOf(record: Found): number {
  const text = record.properties[STAMP] ?? '';
  return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
}

function byStampThenId(a: Found, b: Found): number {
  const time = stampOf(a) - stampOf(b);
  if (time !== 0) return time;
  return Number(a.id) - Number(b.id);
}

export type SearchRecord = CrmRecord;
