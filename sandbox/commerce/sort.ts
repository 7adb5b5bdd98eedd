// The `s` sort (A4): `field:asc,field2:desc` or `-field,field2`. Rows missing a field (or holding
// null) sort last in either direction; `id` ascending is always the final tie-breaker so pages are
// stable (rows without a string id, injected poison, after the others, in the order held).
import { asInstant, FIELD_PATTERN, fieldPath, resolveField, type FieldPath } from './fields.ts';
import { compareIds } from './store.ts';

export type SortKey = { field: FieldPath; descending: boolean };

export class SortSyntaxError extends Error {}

export function parseSort(input: string | null): SortKey[] {
  if (input === null || input.trim() === '') return [];
  return input.split(',').map((raw, index) => {
    const item = raw.trim();
    if (item === '') throw new SortSyntaxError(`s: sort item ${index + 1} is empty`);
    let name = item;
    let descending = false;
    const colon = item.indexOf(':');
    if (colon >= 0) {
      name = item.slice(0, colon);
      const direction = item.slice(colon + 1).toLowerCase();
      if (direction !== 'asc' && direction !== 'desc') throw new SortSyntaxError(`s: direction of "${item}" must be asc or desc`);
      descending = direction === 'desc';
    }
    if (name.startsWith('-')) {
      if (colon >= 0) throw new SortSyntaxError(`s: "${item}" uses both a leading "-" and a direction`);
      name = name.slice(1);
      descending = true;
    }
    if (!FIELD_PATTERN.test(name)) throw new SortSyntaxError(`s: invalid field name "${name}"`);
    return { field: fieldPath(name), descending };
  });
}

// A comparable form of a value: [type rank, value]. Ranks keep mixed types in a fixed order.
type Comparable = readonly [number, number | string] | undefined;

function comparable(value: unknown): Comparable {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return [0, value];
  if (typeof value === 'string') {
    const instant = asInstant(value);
    return instant === undefined ? [2, value] : [1, instant];
  }
  if (typeof value === 'boolean') return [3, Number(value)];
  return [4, JSON.stringify(value)];
}

function compareComparable(a: Comparable, b: Comparable): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** A sorted copy; keys are computed once per row, not once per comparison. */
export function sortRows<T extends { id: string }>(rows: readonly T[], keys: readonly SortKey[]): T[] {
  if (keys.length === 0) return rows.slice();
  const decorated = rows.map((row) => ({ row, values: keys.map((key) => comparable(resolveField(row, key.field))) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const x = a.values[i];
      const y = b.values[i];
      if (x === undefined || y === undefined) {
        const order = compareComparable(x, y); // missing last, whatever the direction
        if (order !== 0) return order;
        continue;
      }
      const order = compareComparable(x, y);
      if (order !== 0) return keys[i]!.descending ? -order : order;
    }
    return compareIds(a.row.id, b.row.id);
  });
  return decorated.map((entry) => entry.row);
}
