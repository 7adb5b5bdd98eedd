// A flow's narrowing (crm/connector.ts RecordFilter) as HubSpot search filters (issue #24 item 9): a list
// of alternatives, each a list of filters ANDed, that search.ts ORs as filter groups beside the window's
// own. Every value goes in a filter as a typed value, never spliced into a query text. `undefined` when a
// part cannot be said (a property name HubSpot would not have, an empty list, more values than an IN
// filter takes): the whole window is read then, and the flow decides record by record.
//
// `oneOf` becomes IN, whose values HubSpot's search guide wants in lower case on a string property ("the
// searched values must be lowercase"), while an enumeration compares with case under every operator
// (docs/crm-wire-behaviour.md, HubSpot, Search). So a string property's values go lowercased (HubSpot
// then finds them in any case; the flow's own check decides), and every other type's as given: an
// enumeration's option values are exact, and a property whose type is not known (no `typeOf`, or one
// the account lacks, which search refuses anyway) is left as the flow declared it.
import type { RecordFilter } from '../connector.ts';
import type { Filter } from './search.ts';

/** Internal property names: lowercase letters, digits and underscores. */
const PROPERTY = /^[a-z][a-z0-9_]*$/;
const IN_VALUES = 100;

/** A property's HubSpot type ('string', 'enumeration', 'number', ...), when known. */
export type PropertyTypeOf = (property: string) => string | undefined;

export function searchAlternatives(filter: RecordFilter, typeOf: PropertyTypeOf = () => undefined): Filter[][] | undefined {
  if ('anyOf' in filter) {
    if (filter.anyOf.length === 0) return undefined;
    const parts = filter.anyOf.map((part) => searchAlternatives(part, typeOf));
    return parts.every((part): part is Filter[][] => part !== undefined) ? parts.flat() : undefined;
  }
  if (!PROPERTY.test(filter.field)) return undefined;
  if ('present' in filter) return [[{ propertyName: filter.field, operator: 'HAS_PROPERTY' }]];
  if ('oneOf' in filter) {
    const values = typeOf(filter.field) === 'string' ? [...new Set(filter.oneOf.map((value) => value.toLowerCase()))] : [...filter.oneOf];
    return values.length && values.length <= IN_VALUES ? [[{ propertyName: filter.field, operator: 'IN', values }]] : undefined;
  }
  return [[{ propertyName: filter.field, operator: 'EQ', value: String(filter.equals) }]];
}

/** Whether a narrowing holds a `oneOf` (whose values depend on the property's type). */
export function hasOneOf(filter: RecordFilter): boolean {
  return 'anyOf' in filter ? filter.anyOf.some(hasOneOf) : 'oneOf' in filter;
}
