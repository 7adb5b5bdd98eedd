// HubSpot property values are text on the wire: numbers as decimal text, booleans 'true'/'false',
// dates and date-times as ISO 8601, and '' clears a value.
export function toWire(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  return String(value);
}

/** A mapped field that is an association reference ({idProperty: value} or a list of them), not a property. */
export function isReference(value: unknown): value is Record<string, string> | Record<string, string>[] {
  const single = (item: unknown) => Boolean(item) && typeof item === 'object' && !Array.isArray(item) && !(item instanceof Date) && Object.keys(item as object).length === 1;
  return Array.isArray(value) ? value.every(single) : single(value);
}
