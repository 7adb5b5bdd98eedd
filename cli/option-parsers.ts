// What each kind of option value takes, checked while the command line is read: a wrong value stops
// the command before it loads anything, with exit code 2 and one line naming the flag (program.ts
// turns commander's message into `--flag: what was wrong`). Each message says what the flag takes.
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';
import { CRM_FLOWS } from '../flows/index.ts';
import { CHOOSABLE_ENTITIES, type Entity } from '../mappings/types.ts';

const quoted = (value: string) => JSON.stringify(value);

/** A schedule interval as connection settings keep it: a whole number with s, m or h (15m, 30s, 24h). */
export function duration(value: string): string {
  if (!/^[1-9]\d*(s|m|h)$/.test(value)) throw new InvalidArgumentError(`${quoted(value)} is not a duration; use a whole number with s, m or h, like 15m`);
  return value;
}

/** A whole number within bounds (a count, a page size, a port). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const number = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`${quoted(value)} is not a whole number ${range}`);
    }
    return number;
  };
}

/** A number (a rate) at or above `min`. */
export function atLeast(min: number) {
  return (value: string): number => {
    const number = value.trim() === '' ? Number.NaN : Number(value);
    if (!Number.isFinite(number) || number < min) throw new InvalidArgumentError(`${quoted(value)} is not a number of ${min} or more`);
    return number;
  };
}

export const port = wholeNumber(0, 65_535);

/**
 * A point in time as ISO 8601 (a date, or a date and time with an optional zone), returned in UTC.
 * Stricter than Date.parse, which takes "1" as the year 2001.
 */
export function isoTime(value: string): string {
  const shaped = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value);
  const time = shaped ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) throw new InvalidArgumentError(`${quoted(value)} is not a time; use ISO 8601, like 2026-01-01 or 2026-01-01T09:30:00Z`);
  return time.toISOString();
}

/** A comma-separated list of entities a connection can sync. */
export function entityList(value: string): Entity[] {
  const entities = value.split(',').map((entity) => entity.trim()).filter(Boolean);
  const unknown = entities.filter((entity) => !CHOOSABLE_ENTITIES.includes(entity as Entity));
  if (entities.length === 0 || unknown.length) {
    const named = unknown.length ? `${unknown.map(quoted).join(', ')} ${unknown.length > 1 ? 'are not entities' : 'is not an entity'}` : 'no entity given';
    throw new InvalidArgumentError(`${named}; choose from ${CHOOSABLE_ENTITIES.join(', ')} (comma-separated)`);
  }
  return entities as Entity[];
}

/** A JSON object given on the command line (mapping overrides, co-sell settings). */
export function jsonObject(example: string) {
  return (value: string): Record<string, unknown> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new InvalidArgumentError(`not JSON (${(error as Error).message}); give an object like ${example}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError(`not a JSON object; give one like ${example}`);
    return parsed as Record<string, unknown>;
  };
}

/** An http(s) URL. */
export function httpUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new InvalidArgumentError(`${quoted(value)} is not a URL; use one starting with https://`);
  return value;
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(what: string, values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`${quoted(value)} is not ${what}; choose ${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);
    return value as T;
  };
}

/** A comma-separated list of ids. */
export function idList(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim()).filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('no id given; give one or more ids, comma-separated');
  return ids;
}

/** Digits only (a HubSpot account id). */
export function digits(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${quoted(value)} is not an account id; use the digits HubSpot shows`);
  return value;
}

/** An address to listen on: an IP address or localhost. */
export function listenAddress(value: string): string {
  if (!isIP(value) && value !== 'localhost') throw new InvalidArgumentError(`${quoted(value)} is not an address to listen on; use an IP address like 127.0.0.1, or localhost`);
  return value;
}

/** Dead letters that are not a flow's records: feed events set aside (activities/sync.ts) and alerts not delivered (activities/alerts.ts). */
export const SET_ASIDE_LETTERS = 'notification';
export const ALERT_LETTERS = 'alert';

/** Which dead letters --entity names for a retry: an entity, notification (feed events set aside), or a co-sell flow. */
export function letterEntity(value: string): string {
  const choices = [...CHOOSABLE_ENTITIES, SET_ASIDE_LETTERS, ...Object.keys(CRM_FLOWS)];
  // Alerts are never sent again by a retry (docs/alerts.md): say so rather than "not an entity".
  if (value === ALERT_LETTERS) throw new InvalidArgumentError(`alerts that could not be delivered are not retried (a retry could send one twice); list them with crm-sync errors <connection> --entity alert`);
  if (!choices.includes(value)) throw new InvalidArgumentError(`${quoted(value)} is not an entity; choose from ${choices.join(', ')}`);
  return value;
}

/** Which dead letters --entity names in a listing: those a retry takes, and alerts that could not be delivered. */
export function listedLetterEntity(value: string): string {
  if (value === ALERT_LETTERS) return value;
  try {
    return letterEntity(value);
  } catch {
    const choices = [...CHOOSABLE_ENTITIES, SET_ASIDE_LETTERS, ALERT_LETTERS, ...Object.keys(CRM_FLOWS)];
    throw new InvalidArgumentError(`${quoted(value)} is not an entity; choose from ${choices.join(', ')}`);
  }
}

/** A name, id, text or file: anything but blank (an empty `--name ""` from a script's unset variable). */
export function nonBlank(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('needs a value, not an empty one (is a variable in the script unset?)');
  return value.trim();
}

/** Comma-separated ids, kept as text for the commands that split them; at least one. */
export function idsText(value: string): string {
  idList(value);
  return value;
}
