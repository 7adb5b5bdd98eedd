// Builders for the query endpoints' `q` filter (LISP-style; grammar in docs/commerce-api-assumptions.md
// A3) and `s` sort (§4.1). Values are always serialised here, never spliced in by hand: strings are
// quoted with `"` and `\` escaped, so no value can close a string or an expression early.

export type FilterValue = string | number | boolean | null | Date;
export type Filter = { readonly expression: string };

const FIELD = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function field(name: string): string {
  if (!FIELD.test(name)) throw new Error(`Invalid filter field name ${JSON.stringify(name)}: letters, digits, _ and . only`);
  return name;
}

export function literal(value: FilterValue): string {
  if (value === null) return 'null';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Error('Invalid Date in a filter value');
    return literal(value.toISOString());
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`A filter number must be finite; got ${value}`);
    return String(value);
  }
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

const compare = (op: string) => (name: string, value: FilterValue): Filter => ({ expression: `(${op} ${field(name)} ${literal(value)})` });

export const q = {
  eq: compare('eq'),
  ne: compare('ne'),
  gt: compare('gt'),
  ge: compare('ge'),
  lt: compare('lt'),
  le: compare('le'),
  like: (name: string, pattern: string): Filter => ({ expression: `(like ${field(name)} ${literal(pattern)})` }),
  in: (name: string, values: FilterValue[]): Filter => {
    if (values.length === 0) throw new Error(`(in ${name}) needs at least one value`);
    return { expression: `(in ${field(name)} ${values.map(literal).join(' ')})` };
  },
  exists: (name: string): Filter => ({ expression: `(exists ${field(name)})` }),
  not: (inner: Filter): Filter => ({ expression: `(not ${inner.expression})` }),
  and: (...parts: Filter[]): Filter => combine('and', parts),
  or: (...parts: Filter[]): Filter => combine('or', parts),
};

function combine(op: 'and' | 'or', parts: Filter[]): Filter {
  if (parts.length === 0) throw new Error(`(${op}) needs at least one expression`);
  if (parts.length === 1) return parts[0]!;
  return { expression: `(${op} ${parts.map((part) => part.expression).join(' ')})` };
}

export type SortKey = { field: string; direction?: 'asc' | 'desc' };

/** `s` in the `field:asc,field2:desc` form. */
export function sort(...keys: SortKey[]): string {
  return keys.map((key) => `${field(key.field)}:${key.direction ?? 'asc'}`).join(',');
}

/**
 * The incremental-sync window on (lastUpdateTime, id), up to a fixed `until`.
 * Without `afterId` the start is inclusive (a run's first page, after the look-back: records seen twice
 * cost nothing, their content hash is unchanged). With `afterId` it resumes strictly after the last
 * record of the previous page, so many records sharing one timestamp are neither skipped nor re-read.
 */
export function changedSince(cursor: { time: Date; afterId?: string }, until?: Date): Filter {
  const after = cursor.afterId
    ? q.or(q.gt('lastUpdateTime', cursor.time), q.and(q.eq('lastUpdateTime', cursor.time), q.gt('id', cursor.afterId)))
    : q.ge('lastUpdateTime', cursor.time);
  return until ? q.and(after, q.le('lastUpdateTime', until)) : after;
}
