// Open dead letters as a person sees them, one page at a time: the record, the reason in the CRM's or
// the commerce side's own words, attempts and the next retry, and on request the mapped payload. Paged,
// filtered and counted in SQL, so a connection with 100,000 letters costs a view the rows it shows.
// Redacted again on the way out: letters recorded before redaction existed may still hold secrets.
import type pg from 'pg';
import { createDeadLetterStore, type DeadLetter, type OpenLetterFilter, type OpenLetterOrder } from '../store/dead-letters.ts';
import { redactSecrets, redactText } from '../store/redact.ts';

export type DeadLetterView = {
  id: number;
  entity: string;
  sourceId: string;
  reason: string;
  crmError?: unknown;
  payload?: unknown;
  attempts: number;
  firstFailedAt: Date;
  lastFailedAt: Date;
  nextRetryAt: Date | null;
};

export type DeadLetterQuery = OpenLetterFilter & {
  order?: OpenLetterOrder;
  /** Rows per page (1 to MAX_PAGE_SIZE). */
  limit?: number;
  /** 1-based. */
  page?: number;
  withPayload?: boolean;
};

export type DeadLetterPage = {
  /** Open letters matching the filter, all pages. */
  total: number;
  /** Open letters per entity, under the filter's other conditions (ids, search) but any entity. */
  byEntity: Record<string, number>;
  page: number;
  limit: number;
  /** Position of the first row shown, 1-based (0 when none is shown). */
  first: number;
  /** Position of the last row shown. */
  last: number;
  pages: number;
  letters: DeadLetterView[];
};

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export function toView(letter: DeadLetter, withPayload: boolean): DeadLetterView {
  return {
    id: letter.id,
    entity: letter.entity,
    sourceId: letter.sourceId,
    reason: redactText(letter.reason),
    ...(letter.crmError !== undefined && { crmError: redactSecrets(letter.crmError) }),
    ...(withPayload && letter.payload !== undefined && { payload: redactSecrets(letter.payload) }),
    attempts: letter.attempts,
    firstFailedAt: letter.firstFailedAt,
    lastFailedAt: letter.lastFailedAt,
    nextRetryAt: letter.nextRetryAt,
  };
}

export async function openDeadLetters(pool: pg.Pool, connectionId: string, query: DeadLetterQuery = {}): Promise<DeadLetterPage> {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_PAGE_SIZE), 1), MAX_PAGE_SIZE);
  const page = Math.max(Math.trunc(query.page ?? 1), 1);
  const filter: OpenLetterFilter = { entity: query.entity, sourceIds: query.sourceIds, search: query.search };
  const store = createDeadLetterStore(pool);
  const [counts, rows] = await Promise.all([
    store.countOpen(connectionId, filter),
    store.pageOpen(connectionId, { ...filter, order: query.order, limit, offset: (page - 1) * limit, withPayload: query.withPayload }),
  ]);
  const first = rows.length ? (page - 1) * limit + 1 : 0;
  return {
    total: counts.total,
    byEntity: counts.byEntity,
    page,
    limit,
    first,
    last: rows.length ? first + rows.length - 1 : 0,
    pages: Math.max(Math.ceil(counts.total / limit), 1),
    letters: rows.map((letter) => toView(letter, Boolean(query.withPayload))),
  };
}
