// What every operation handler shares: its context, its reply, and body and filter helpers.
import type { OperationKey } from '../../../commerce/operations.ts';
import { badRequest, notFound } from '../errors.ts';
import { isPlainObject } from '../http-util.ts';
import { listPaging, pageOf } from '../paging.ts';
import type { SandboxState } from '../state.ts';

export type HandlerContext = {
  state: SandboxState;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The OAuth client id behind the bearer token (offer create dedup is per client, §8). */
  clientId: string;
};

/** `text` is sent verbatim (a remembered response); otherwise `body` is serialized. */
export type Reply = { status?: number; body?: unknown; text?: string; headers?: Record<string, string> };
export type Handler = (context: HandlerContext) => Reply;
export type HandlerTable = Partial<Record<OperationKey, Handler>>;

export const ok = (body: unknown): Reply => ({ status: 200, body });

export function objectBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

export function found<T>(record: T | undefined, what: string, id: string): T {
  if (record === undefined) throw notFound(`${what} ${id} not found`);
  return record;
}

/**
 * Equality filters of a list endpoint: each query parameter named in `filters` keeps the rows whose
 * value equals it (a repeated parameter matches any of its values; an empty one is ignored).
 */
export function filterList<T>(rows: readonly T[], query: URLSearchParams, filters: Record<string, (row: T) => unknown>): readonly T[] {
  const active: [(row: T) => unknown, string[]][] = [];
  for (const [name, read] of Object.entries(filters)) {
    const values = query.getAll(name).filter((value) => value !== '');
    if (values.length > 0) active.push([read, values]);
  }
  if (active.length === 0) return rows;
  return rows.filter((row) =>
    active.every(([read, values]) => {
      const actual = read(row);
      return Array.isArray(actual) ? actual.some((item) => values.includes(item as string)) : values.includes(actual as string);
    }),
  );
}

/** A list endpoint's reply (A5): a bare JSON array, paged by limit and offset. */
export function listReply<T>(rows: readonly T[], query: URLSearchParams): Reply {
  return ok(pageOf(rows, listPaging(query)));
}

/** RFC 7396 JSON merge patch: objects merge, null removes a field, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** metaInfo fields the service owns (§2.6); a PATCH cannot set or remove them, so they are dropped. */
const SERVER_OWNED_META = ['createdByEmail', 'createRetryAttempts', 'nextCreateRetryAt', 'creditLedgerAppliedEntries'];

export function patchMetaInfo(current: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  const fields = { ...objectBody(patch) };
  for (const key of SERVER_OWNED_META) delete fields[key];
  return mergePatch(current, fields) as Record<string, unknown>;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an ISO 8601 date-time field, or a 400 naming the field. */
export function dateTimeField(value: unknown, field: string): number {
  const ms = typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw badRequest(`${field} must be an ISO 8601 date-time such as 2026-03-01T00:00:00Z, got ${JSON.stringify(value)}`, { field });
  return ms;
}
