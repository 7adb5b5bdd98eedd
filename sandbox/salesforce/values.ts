// Turning wire values into stored values, per field type, the way Salesforce reads them:
// JSON values (REST) and CSV text (Bulk API 2.0). Stored forms are what the REST API returns:
// text as strings, currency as numbers rounded to the field's scale, dates as YYYY-MM-DD and
// date-times as 2026-01-01T00:00:00.000+0000 with the milliseconds dropped (Salesforce keeps seconds).
import { canonicalId } from './ids.ts';
import { isTextType, type SandboxField } from './schema.ts';

export type Coerced = { ok: true; value: unknown } | { ok: false };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function validCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Epoch milliseconds of an ISO 8601 date-time (a bare date is midnight UTC), or undefined. */
export function parseDateTime(text: string): number | undefined {
  const m = DATETIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m;
  if (!validCalendarDate(Number(y), Number(mo), Number(d))) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(fraction.padEnd(3, '0').slice(0, 3)));
  if (zone !== 'Z') {
    const digits = zone.replace(':', '');
    const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
    ms -= digits[0] === '+' ? offset : -offset;
  }
  return ms;
}

/** Salesforce's REST rendering of a date-time, truncated to whole seconds. */
export function formatDateTime(ms: number): string {
  const truncated = Math.floor(ms / 1000) * 1000;
  return new Date(truncated).toISOString().replace('Z', '+0000');
}

export function parseDate(text: string): string | undefined {
  const trimmed = text.trim();
  const m = DATE.exec(trimmed);
  if (m) return validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) ? trimmed : undefined;
  // A full date-time is accepted for a date field: its date part (in UTC) is kept.
  const ms = parseDateTime(trimmed);
  return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/** Rounds half away from zero to `scale` decimals without binary floating-point drift. */
export function roundToScale(value: number, scale: number): number {
  const sign = value < 0 ? -1 : 1;
  return sign * Number(`${Math.round(Number(`${Math.abs(value)}e${scale}`))}e-${scale}`);
}

function fromText(field: SandboxField, text: string): Coerced {
  switch (field.type) {
    case 'currency':
    case 'double': {
      if (!NUMBER.test(text.trim())) return { ok: false };
      return { ok: true, value: roundToScale(Number(text), field.scale) };
    }
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (lower === 'true' || lower === '1') return { ok: true, value: true };
      if (lower === 'false' || lower === '0') return { ok: true, value: false };
      return { ok: false };
    }
    case 'date': {
      const date = parseDate(text);
      return date === undefined ? { ok: false } : { ok: true, value: date };
    }
    case 'datetime': {
      const ms = parseDateTime(text);
      return ms === undefined ? { ok: false } : { ok: true, value: formatDateTime(ms) };
    }
    case 'id':
    case 'reference':
      // Kept as sent: a malformed id is a per-record error (MALFORMED_ID), found at validation.
      return { ok: true, value: text.trim() === '' ? null : (canonicalId(text.trim()) ?? text.trim()) };
    default:
      // Salesforce stores an empty string as null.
      return { ok: true, value: text === '' ? null : text };
  }
}

/** A JSON value for `field`: ok with the stored form, or not ok when Salesforce's parser refuses it. */
export function coerceJson(field: SandboxField, raw: unknown): Coerced {
  if (raw === null) return { ok: true, value: null };
  if (typeof raw === 'object') return { ok: false };
  if (field.type === 'currency' || field.type === 'double') {
    if (typeof raw === 'number') return Number.isFinite(raw) ? { ok: true, value: roundToScale(raw, field.scale) } : { ok: false };
    if (typeof raw === 'string') return raw.trim() === '' ? { ok: true, value: null } : fromText(field, raw);
    return { ok: false };
  }
  if (field.type === 'boolean') {
    if (typeof raw === 'boolean') return { ok: true, value: raw };
    if (typeof raw === 'string') {
      const lower = raw.toLowerCase();
      return lower === 'true' || lower === 'false' ? { ok: true, value: lower === 'true' } : { ok: false };
    }
    return { ok: false };
  }
  if (field.type === 'date' || field.type === 'datetime') {
    if (typeof raw !== 'string') return { ok: false };
    return raw === '' ? { ok: true, value: null } : fromText(field, raw);
  }
  if (isTextType(field.type) || field.type === 'id' || field.type === 'reference') {
    // Numbers and booleans are read as their text, as Salesforce's deserializer does.
    return fromText(field, String(raw));
  }
  return { ok: false };
}

/** A CSV cell for `field` (neither empty nor #N/A, which the Bulk API treats specially). */
export function coerceCsv(field: SandboxField, text: string): Coerced {
  return fromText(field, text);
}

/** The JSON token kind Salesforce's parser names in its errors (VALUE_STRING, START_OBJECT ...). */
export function jsonTokenKind(raw: unknown): string {
  if (raw === null) return 'VALUE_NULL';
  if (Array.isArray(raw)) return 'START_ARRAY';
  if (typeof raw === 'object') return 'START_OBJECT';
  if (typeof raw === 'string') return 'VALUE_STRING';
  if (typeof raw === 'boolean') return raw ? 'VALUE_TRUE' : 'VALUE_FALSE';
  if (typeof raw === 'number') return Number.isInteger(raw) ? 'VALUE_NUMBER_INT' : 'VALUE_NUMBER_FLOAT';
  return 'VALUE_EMBEDDED_OBJECT';
}

/** The xsd type name the Bulk API uses when a CSV cell cannot be read as the field's type. */
export function xsdTypeName(field: SandboxField): string {
  switch (field.type) {
    case 'currency':
    case 'double':
      return 'xsd:double';
    case 'boolean':
      return 'xsd:boolean';
    case 'date':
      return 'xsd:date';
    case 'datetime':
      return 'xsd:dateTime';
    default:
      return 'xsd:string';
  }
}
