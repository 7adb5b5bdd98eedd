// A flow's narrowing (crm/connector.ts RecordFilter) as an OData $filter clause for Dataverse, typed by
// each column's attribute type and escaped by odata.ts (issue #24 item 9). `undefined` when a part cannot
// be said in a filter that means the same: a column the table lacks or whose type has no literal here
// (only text and yes/no columns are compared: a choice column filters by its integer values, never the
// labels a share rule names), or a value that is
// not of the column's type. The whole window is read then, and the flow decides record by record.
import type { RecordFilter } from '../connector.ts';
import { literal, ODataValueError, type LiteralKind } from './odata.ts';

/** Column names as Dataverse takes them in $filter (logical names: lowercase letters, digits, underscores). */
const COLUMN = /^[a-z_][a-z0-9_]*$/;

export function odataFilter(filter: RecordFilter, kindOf: (column: string) => LiteralKind | undefined): string | undefined {
  if ('anyOf' in filter) {
    if (filter.anyOf.length === 0) return undefined;
    const parts = filter.anyOf.map((part) => odataFilter(part, kindOf));
    return parts.every((part): part is string => part !== undefined) ? `(${parts.join(' or ')})` : undefined;
  }
  if (!COLUMN.test(filter.field)) return undefined;
  const kind = kindOf(filter.field);
  if (!kind) return undefined;
  if ('present' in filter) return `${filter.field} ne null`;
  // Text and yes/no columns only: a number-typed column may be a choice, read as its label but filtered by its value.
  if (kind !== 'string' && kind !== 'boolean') return undefined;
  try {
    if ('oneOf' in filter) return filter.oneOf.length ? `(${filter.oneOf.map((value) => `${filter.field} eq ${literal(value, kind)}`).join(' or ')})` : undefined;
    return `${filter.field} eq ${literal(filter.equals, kind)}`;
  } catch (error) {
    if (error instanceof ODataValueError) return undefined;
    throw error;
  }
}
