// POST /crm/v3/objects/{type}/search: filterGroups (OR of groups, AND within one), typed comparisons,
// sorts, chosen properties, limit <= 200, `after` as an offset, and the 10,000-result ceiling.
// The result set is evaluated again at every request and `after` is an offset into it, as HubSpot's
// is: a record changed between two page requests leaves the filters or moves in the sort, and every
// later offset shifts by one (docs/crm-wire-behaviour.md, issue #22 item 2). Only one sorting rule is
// taken, as HubSpot documents, and records tied in it come in an order HubSpot does not promise: here a
// stable scramble of their ids, never id order, so a reader that assumes id order among ties is caught.
// HubSpot's search reads an index that follows writes seconds late (docs/crm-wire-behaviour.md, "Search
// lags writes"): with a lag set (`POST /_sandbox/limits {searchLagMs}`), search sees each record as it
// was `searchLagMs` ago: a record made since is not found, one changed since is found as it was. Reads by
// id (GET, batch read) are never late. The lag is 0 (search follows every write at once) until set, and
// a reset sets it back to 0.
// Case and size, as HubSpot's search guide says (docs/crm-wire-behaviour.md): text compares without case,
// except an enumeration (with case, every operator) and IN/NOT_IN on a string property (the stored value
// lowercased against the values as given, which "must be lowercase"); a body over 3,000 characters is
// refused with a 400.
import { validation } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { objectTypeOf } from './objects.ts';
import type { PropertyDef } from './schema.ts';
import type { HubRecord, Store } from './store.ts';
import { compare } from './values.ts';
import { present } from './writes.ts';

export const MAX_SEARCH_LIMIT = 200;
export const SEARCH_CEILING = 10_000;
// HubSpot's search guide (last modified 30 March 2026, Limits): "a maximum of five filterGroups with up
// to six filters in each group, with a maximum of 18 filters in total". The developer changelog of
// 26 August 2024 said 5, 10 and 25; the guide is newer and stricter, so a request the sandbox takes is
// one HubSpot takes under either (docs/crm-wire-behaviour.md).
export const MAX_FILTER_GROUPS = 5;
export const MAX_FILTERS_PER_GROUP = 6;
export const MAX_FILTERS = 18;
// HubSpot's search guide (developers.hubspot.com/docs/api-reference/latest/crm/search-the-crm, Limits):
// "A query can contain a maximum of 3,000 characters. If the body of your request exceeds 3,000
// characters, a 400 error will be returned." Counted here over the whole body as received (JSON text,
// properties list included), in UTF-16 code units as a Java server's String.length() would [inf].
export const MAX_SEARCH_BODY_CHARACTERS = 3000;
export const OPERATORS = ['EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'BETWEEN', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'CONTAINS_TOKEN', 'NOT_CONTAINS_TOKEN'] as const;
type Operator = (typeof OPERATORS)[number];
type Filter = { propertyName: string; operator: Operator; value?: unknown; values?: unknown[]; highValue?: unknown };

function filtersOf(body: Record<string, unknown>, property: (name: string) => PropertyDef | undefined): Filter[][] {
  const groups = body.filterGroups ?? [];
  if (!Array.isArray(groups)) throw validation('filterGroups must be a list');
  if (groups.length > MAX_FILTER_GROUPS) throw validation(`Too many filter groups: ${groups.length} were given, at most ${MAX_FILTER_GROUPS} are allowed.`);
  let count = 0;
  const parsed = groups.map((group, g) => {
    const filters = (group as { filters?: unknown })?.filters;
    if (!Array.isArray(filters)) throw validation(`filterGroups[${g}].filters must be a list`);
    if (filters.length > MAX_FILTERS_PER_GROUP) throw validation(`Too many filters in filterGroups[${g}]: ${filters.length} were given, at most ${MAX_FILTERS_PER_GROUP} are allowed in one group.`);
    return filters.map((raw, f) => {
      count += 1;
      const filter = raw as Filter;
      const where = `filterGroups[${g}].filters[${f}]`;
      if (!filter || typeof filter.propertyName !== 'string') throw validation(`${where}.propertyName must be a property name`);
      if (!OPERATORS.includes(filter.operator)) throw validation(`${where}.operator ${JSON.stringify(filter.operator)} is not one of ${OPERATORS.join(', ')}`);
      if (!property(filter.propertyName)) throw validation(`${where}: there is no property ${filter.propertyName}`);
      const needsValue = !['HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'IN', 'NOT_IN'].includes(filter.operator);
      if (needsValue && (filter.value === undefined || filter.value === null)) throw validation(`${where}: operator ${filter.operator} needs a value`);
      if (filter.operator === 'BETWEEN' && (filter.highValue === undefined || filter.highValue === null)) throw validation(`${where}: operator BETWEEN needs a highValue`);
      if ((filter.operator === 'IN' || filter.operator === 'NOT_IN') && !Array.isArray(filter.values)) throw validation(`${where}: operator ${filter.operator} needs values (a list)`);
      return filter;
    });
  });
  if (count > MAX_FILTERS) throw validation(`Too many filters: ${count} were given, at most ${MAX_FILTERS} are allowed.`);
  return parsed;
}

const tokens = (text: string) => text.split(/[^\p{L}\p{N}*]+/u).filter(Boolean);
/** Whether `stored` holds the token(s) `wanted`; without case unless `withCase` (an enumeration). */
function containsToken(stored: string, wanted: unknown, withCase = false): boolean {
  const fold = (text: string) => (withCase ? text : text.toLowerCase());
  const pattern = fold(String(wanted));
  if (pattern.includes('*')) {
    const regex = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return tokens(fold(stored)).some((t) => regex.test(t)) || regex.test(fold(stored));
  }
  const wantedTokens = tokens(pattern);
  const have = tokens(fold(stored));
  return wantedTokens.length > 0 && wantedTokens.every((t) => have.includes(t));
}

const byCodePoint = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * A filter's comparison, with the guide's two exceptions to "Values in filters are case-insensitive"
 * (docs/crm-wire-behaviour.md): an enumeration compares with case under every operator, and IN/NOT_IN on
 * a string property compare the stored value lowercased with the value as given ("the searched values
 * must be lowercase": one with an upper-case letter matches nothing).
 */
function filterCompare(property: PropertyDef | undefined, operator: Operator, stored: string, given: unknown): number | undefined {
  const type = property?.type ?? 'string';
  if (type === 'enumeration') return byCodePoint(stored, String(given));
  if (type === 'string' && (operator === 'IN' || operator === 'NOT_IN')) return byCodePoint(stored.toLowerCase(), String(given));
  return compare(property, stored, given);
}

function matches(record: HubRecord, filter: Filter, property: PropertyDef | undefined): boolean {
  const stored = filter.propertyName === 'id' ? record.id : record.properties[filter.propertyName];
  const has = stored !== undefined && stored !== '';
  const cmp = (given: unknown) => (has ? filterCompare(property, filter.operator, stored, given) : undefined);
  const withCase = property?.type === 'enumeration';
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return has;
    case 'NOT_HAS_PROPERTY':
      return !has;
    case 'EQ':
      return cmp(filter.value) === 0;
    case 'NEQ':
      return cmp(filter.value) !== 0;
    case 'LT':
      return cmp(filter.value) === -1;
    case 'LTE':
      return [-1, 0].includes(cmp(filter.value) as number);
    case 'GT':
      return cmp(filter.value) === 1;
    case 'GTE':
      return [1, 0].includes(cmp(filter.value) as number);
    case 'BETWEEN':
      return [1, 0].includes(cmp(filter.value) as number) && [-1, 0].includes(cmp(filter.highValue) as number);
    case 'IN':
      return filter.values!.some((v) => cmp(v) === 0);
    case 'NOT_IN':
      return !filter.values!.some((v) => cmp(v) === 0);
    case 'CONTAINS_TOKEN':
      return has && containsToken(stored, filter.value, withCase);
    case 'NOT_CONTAINS_TOKEN':
      return !has || !containsToken(stored, filter.value, withCase);
  }
}

type Sort = { propertyName: string; direction: 'ASCENDING' | 'DESCENDING' };
function sortsOf(body: Record<string, unknown>): Sort[] {
  const sorts = body.sorts ?? [];
  if (!Array.isArray(sorts)) throw validation('sorts must be a list');
  // HubSpot's search guide: "Only one sorting rule can be applied to any search" (docs/crm-wire-behaviour.md).
  if (sorts.length > 1) throw validation(`Only one sorting rule can be applied to a search: ${sorts.length} were given.`, { context: { sorts: [String(sorts.length)] } });
  return sorts.map((sort, i) => {
    // The spec types a sort as text ("-createdate" descends); the documented form is an object.
    if (typeof sort === 'string') return sort.startsWith('-') ? { propertyName: sort.slice(1), direction: 'DESCENDING' } : { propertyName: sort, direction: 'ASCENDING' };
    const s = sort as Sort;
    if (!s || typeof s.propertyName !== 'string') throw validation(`sorts[${i}].propertyName must be a property name`);
    if (s.direction !== undefined && s.direction !== 'ASCENDING' && s.direction !== 'DESCENDING') throw validation(`sorts[${i}].direction must be ASCENDING or DESCENDING`);
    return { propertyName: s.propertyName, direction: s.direction ?? 'ASCENDING' };
  });
}

/** The most a lag may be set to: ten minutes (a real index that far behind is an incident, not a lag). */
export const MAX_SEARCH_LAG_MS = 600_000;

/**
 * What search sees of one store: with no lag, the records as they are; with a lag, each record's newest
 * version written at least `lagMs` ago (wall-clock time, not the sandbox's `now`: the lag is the index's
 * own delay, whatever clock the records are stamped by). Versions written while the lag is on are kept
 * until they are older than it; records already there when it was set count as indexed.
 */
function createSearchIndex(store: Store) {
  let lagMs = 0;
  /** Per record (`type\0id`): the version search sees once everything after it is still fresh. */
  let settled = new Map<string, HubRecord>();
  /** Per record: versions written within the lag, oldest first, with when they were written. */
  let fresh = new Map<string, { at: number; record: HubRecord }[]>();
  const key = (type: string, id: string) => `${type}\u0000${id}`;
  store.onChange((change) => {
    if (change.op === 'clear') {
      lagMs = 0;
      settled = new Map();
      fresh = new Map();
    }
    if (change.op !== 'record' || lagMs === 0) return;
    const k = key(change.type, change.record.id);
    fresh.set(k, [...(fresh.get(k) ?? []), { at: Date.now(), record: change.record }]);
  });
  return {
    lag: () => lagMs,
    setLag(ms: number) {
      if (ms > 0 && lagMs === 0) {
        // Everything written before the lag is set is already in the index.
        settled = new Map();
        fresh = new Map();
        for (const type of store.objectTypes()) for (const record of store.records(type.name)) settled.set(key(type.name, record.id), record);
      }
      lagMs = ms;
    },
    /** A type's records as search sees them now. */
    records(type: string): HubRecord[] {
      const live = store.records(type);
      if (lagMs === 0) return live;
      const cutoff = Date.now() - lagMs;
      return live.flatMap((record) => {
        const k = key(type, record.id);
        const versions = fresh.get(k);
        if (versions) {
          // Versions old enough to be indexed are folded into the settled one.
          const ripe = versions.filter((version) => version.at <= cutoff);
          if (ripe.length) settled.set(k, ripe.at(-1)!.record);
          const rest = versions.filter((version) => version.at > cutoff);
          if (rest.length) fresh.set(k, rest);
          else fresh.delete(k);
        }
        const seen = settled.get(k);
        return seen ? [seen] : [];
      });
    },
  };
}

const indexes = new WeakMap<Store, ReturnType<typeof createSearchIndex>>();

/** The search index of a sandbox's store (made on first use, kept with the store). */
export function searchIndexOf(store: Store) {
  let index = indexes.get(store);
  if (!index) {
    index = createSearchIndex(store);
    indexes.set(store, index);
  }
  return index;
}

export function search(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const { store } = ctx.state;
  if (ctx.body.length > MAX_SEARCH_BODY_CHARACTERS) {
    // HubSpot publishes the limit and the 400, not the refusal's words: these are the sandbox's own [inf].
    throw validation(`The search request is ${ctx.body.length} characters long: a search body may hold at most ${MAX_SEARCH_BODY_CHARACTERS} characters. Search for fewer values or ask for fewer properties.`, {
      context: { length: [String(ctx.body.length)], limit: [String(MAX_SEARCH_BODY_CHARACTERS)] },
    });
  }
  const body = bodyObject(ctx);
  const property = (name: string) => (name === 'id' ? store.property(type, 'hs_object_id') : store.property(type, name));
  const groups = filtersOf(body, property);
  const sorts = sortsOf(body);
  const limit = body.limit ?? 10;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw validation(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, not ${JSON.stringify(limit)}`);
  }
  const after = body.after === undefined || body.after === null || body.after === '' ? 0 : Number(body.after);
  if (!Number.isInteger(after) || after < 0) throw validation(`after must be a paging cursor from an earlier page, not ${JSON.stringify(body.after)}`);
  // HubSpot pages search by offset and stops at 10,000: a request for a page past it is refused (README).
  if (after + limit > SEARCH_CEILING) {
    throw validation(`The search results are limited to ${SEARCH_CEILING} records: after ${after} with limit ${limit} goes past it. Narrow the filters (for example on hs_lastmodifieddate) and search again.`, {
      context: { after: [String(after)], limit: [String(limit)] },
    });
  }
  const query = typeof body.query === 'string' ? body.query : '';
  const found = searchIndexOf(store)
    .records(type)
    .filter((r) => !r.archived)
    .filter((r) => groups.length === 0 || groups.some((group) => group.every((f) => matches(r, f, property(f.propertyName)))))
    .filter((r) => query === '' || Object.values(r.properties).some((v) => containsToken(v, query)));
  const byId = (a: HubRecord, b: HubRecord) => Number(a.id) - Number(b.id);
  // Ties in the requested sort: a stable scramble of the ids (the same at every request, so `after` still
  // pages one order), not id order, which HubSpot does not promise. Without a sort, id order [inf].
  const tie = sorts.length ? (a: HubRecord, b: HubRecord) => scramble(a.id) - scramble(b.id) || byId(a, b) : byId;
  found.sort((a, b) => {
    for (const sort of sorts) {
      const x = a.properties[sort.propertyName] ?? '';
      const y = b.properties[sort.propertyName] ?? '';
      if (x === y) continue;
      // Records without the value come last whichever the direction.
      if (x === '' || y === '') return x === '' ? 1 : -1;
      const c = compare(property(sort.propertyName), x, y) ?? 0;
      if (c !== 0) return sort.direction === 'DESCENDING' ? -c : c;
    }
    return tie(a, b);
  });
  const page = found.slice(after, after + limit);
  const next = after + limit;
  const requested = Array.isArray(body.properties) ? (body.properties as string[]) : undefined;
  return json(200, {
    total: found.length,
    results: page.map((r) => present(type, r, requested)),
    ...(next < found.length ? { paging: { next: { after: String(next) } } } : {}),
  });
}

/** A stable, id-unordered rank for ties: FNV-1a over the id's text (32 bits). */
function scramble(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
