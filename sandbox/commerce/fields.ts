// Field paths of `q` and `s` (A3, A4): names match response fields case-insensitively with underscores
// ignored (last_update_time = lastUpdateTime), dots reach nested objects, and a path through an
// array collects the values of every element.

export const FIELD_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const normalized = new Map<string, string>();
export function normalizeFieldName(name: string): string {
  let result = normalized.get(name);
  if (result === undefined) {
    result = name.replaceAll('_', '').toLowerCase();
    if (normalized.size < 10_000) normalized.set(name, result);
  }
  return result;
}

export type FieldPath = { text: string; segments: string[] };

export function fieldPath(text: string): FieldPath {
  return { text, segments: text.split('.').map(normalizeFieldName) };
}

/** The value at `path`, undefined when missing; an array when the path crossed an array. */
export function resolveField(row: unknown, path: FieldPath): unknown {
  return resolveFrom(row, path.segments, 0);
}

function resolveFrom(value: unknown, segments: readonly string[], index: number): unknown {
  if (index === segments.length) return value;
  if (Array.isArray(value)) {
    const collected: unknown[] = [];
    for (const element of value) {
      const inner = resolveFrom(element, segments, index);
      if (Array.isArray(inner)) collected.push(...inner);
      else if (inner !== undefined) collected.push(inner);
    }
    return collected.length > 0 ? collected : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const wanted = segments[index]!;
  for (const key in record) {
    if (normalizeFieldName(key) === wanted) return resolveFrom(record[key], segments, index + 1);
  }
  return undefined;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Epoch milliseconds when `value` is an ISO 8601 date-time with a zone, else undefined. */
export function asInstant(value: string): number | undefined {
  if (value.length < 16 || !DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
