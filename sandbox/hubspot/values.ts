// Property values are strings on the wire. A write is checked against its property's type and kept
// in HubSpot's form (datetimes as ISO 8601 in UTC, numbers as written); search compares them typed.
import type { PropertyDef } from './schema.ts';

/** A datetime or date given as epoch milliseconds (number or text) or ISO 8601, as epoch ms. */
export function epochMillis(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^-?\d+$/.test(value.trim())) return Number(value.trim());
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The stored text for `value`, or the reason it is not a valid value of `property`. */
export function normalize(property: PropertyDef, value: unknown): { value: string } | { error: string } {
  if (value === null || value === '') return { value: '' };
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) return { error: `${JSON.stringify(value)} is not a valid value for ${property.name}: property values are text` };
  switch (property.type) {
    case 'number':
      return Number.isFinite(Number(text)) ? { value: text } : { error: `${JSON.stringify(text)} was not a valid number.` };
    case 'datetime':
    case 'date': {
      const ms = epochMillis(text);
      if (ms === undefined) return { error: `${JSON.stringify(text)} was not a valid long or ISO 8601 date.` };
      const iso = new Date(property.type === 'date' ? Math.floor(ms / 86_400_000) * 86_400_000 : ms).toISOString();
      return { value: iso };
    }
    case 'bool':
      return text === 'true' || text === 'false' ? { value: text } : { error: `${JSON.stringify(text)} is not a valid boolean (true or false).` };
    case 'enumeration':
      if (property.options.length > 0 && !property.options.some((o) => o.value === text)) {
        return { error: `${JSON.stringify(text)} was not one of the allowed options: ${property.options.map((o) => o.value).join(', ')}` };
      }
      return { value: text };
    default:
      return { value: text };
  }
}

/** -1, 0 or 1 comparing a stored value with a filter value, typed by the property; undefined when they cannot be compared. */
export function compare(property: PropertyDef | undefined, stored: string, given: unknown): number | undefined {
  const type = property?.type ?? 'string';
  if (type === 'number') {
    const a = Number(stored);
    const b = Number(given);
    if (!Number.isFinite(a) || !Number.isFinite(b) || stored === '') return undefined;
    return Math.sign(a - b);
  }
  if (type === 'datetime' || type === 'date') {
    const a = epochMillis(stored);
    const b = epochMillis(given);
    if (a === undefined || b === undefined) return undefined;
    return Math.sign(a - b);
  }
  const b = String(given);
  if (type === 'string' || type === 'enumeration') {
    const x = stored.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return stored < b ? -1 : stored > b ? 1 : 0;
}
