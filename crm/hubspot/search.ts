// Reads through HubSpot's search: changed records by hs_lastmodifieddate with a (modified time, id)
// cursor, and records whose property holds one of some values. Every value goes in a filter as a typed
// value (never spliced into a query text). Search answers at most 10,000 results per query, so a long
// read restarts its query from the cursor before it gets there.
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
          after: String(after),
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
     * (modified time, id), `pageSize` at a time. The query restarts from the last record read before
     * its results pass 10,000.
     */
    async *changed(object: string, start: Cursor, until: Date | undefined, properties: string[], pageSize: number, signal?: AbortSignal): AsyncGenerator<{ id: string; properties: Record<string, string | null> }[]> {
      const limit = Math.min(SEARCH_PAGE, Math.max(1, pageSize));
      const wanted = [...new Set([...properties, STAMP, ID])];
      // The query stays the same while it pages; the position moves with every page and is where a
      // restarted query begins.
      let position = start;
      for (;;) {
        const groups = windowGroups(position, until);
        let after = 0;
        let restart = false;
        for (;;) {
          if (after + limit > SEARCH_CEILING) {
            restart = true;
            break;
          }
          const answer = await search(object, groups, wanted, limit, after, true, signal);
          const page = [...(answer.results ?? [])].sort(byStampThenId);
          if (page.length) {
            const last = page.at(-1)!;
            position = { time: new Date(last.properties[STAMP]!), afterId: String(last.properties[ID] ?? last.id) };
            yield page;
          }
          if (!answer.paging?.next?.after) return;
          after = Number(answer.paging.next.after);
        }
        if (!restart) return;
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

function byStampThenId(a: { id: string; properties: Record<string, string | null> }, b: { id: string; properties: Record<string, string | null> }): number {
  const time = Date.parse(a.properties[STAMP] ?? '') - Date.parse(b.properties[STAMP] ?? '');
  if (time !== 0) return time;
  return Number(a.id) - Number(b.id);
}

export type SearchRecord = CrmRecord;
