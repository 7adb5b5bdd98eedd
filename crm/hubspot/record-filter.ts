// A flow's narrowing (crm/connector.ts RecordFilter) as HubSpot search filters (issue #24 item 9): a list
// of alternatives, each a list of filters ANDed, that search.ts ORs as filter groups beside the window's
// own. Every value goes in a filter as a typed value, never spliced into a query text. `undefined` when a
// part cannot be said (a property name HubSpot would not have, an empty list, more values than an IN
// filter takes): the whole window is read then, and the flow decides record by record.
import type { RecordFilter } from '../connector.ts';
import type { Filter } from './search.ts';

/** Internal property names: lowercase letters, digits and underscores. */
const PROPERTY = /^[a-z][a-z0-9_]*$/;
const IN_VALUES = 100;

export function searchAlternatives(filter: RecordFilter): Filter[][] | undefined {
  if ('anyOf' in filter) {
    if (filter.anyOf.length === 0) return undefined;
    const parts = filter.anyOf.map(searchAlternatives);
    return parts.every((part): part is Filter[][] => part !== undefined) ? parts.flat() : undefined;
  }
  if (!PROPERTY.test(filter.field)) return undefined;
  if ('present' in filter) return [[{ propertyName: filter.field, operator: 'HAS_PROPERTY' }]];
  if ('oneOf' in filter) return filter.oneOf.length && filter.oneOf.length <= IN_VALUES ? [[{ propertyName: filter.field, operator: 'IN', values: [...filter.oneOf] }]] : undefined;
  return [[{ propertyName: filter.field, operator: 'EQ', value: String(filter.equals) }]];
}
