// Dead letters: records the CRM (or our validation) rejected, kept with the reason and the mapped
// payload. One open letter per record; each new failure counts an attempt and pushes the next retry
// further out; a later success resolves it.
import type pg from 'pg';
import { redactSecrets, redactText } from './redact.ts';

export type DeadLetterInput = { sourceId: string; reason: string; crmError?: unknown; payload?: unknown };
export type DeadLetter = DeadLetterInput & { id: number; connectionId: string; entity: string; attempts: number; firstFailedAt: Date; lastFailedAt: Date; nextRetryAt: Date | null };

/** Retry after 5 min, 10, 20, ... capped at 6 h. */
export const RETRY_BASE_SECONDS = 300;
export const RETRY_CAP_SECONDS = 6 * 3600;
/** After this many failed attempts a letter waits for a person (crm-sync dead-letters --retry). */
export const MAX_DEAD_LETTER_ATTEMPTS = 5;

export type RetryFilter = { entity?: string; sourceIds?: string[] };

/** What a person narrows the open letters to: an entity, some records, words of the reason or a record id. */
export type OpenLetterFilter = { entity?: string; sourceIds?: string[]; search?: string };
/** newest: the last failure first; next-retry: the soonest retry first, those waiting for a person last. */
export type OpenLetterOrder = 'newest' | 'next-retry';
export type OpenLetterPage = OpenLetterFilter & { order?: OpenLetterOrder; limit: number; offset?: number; withPayload?: boolean };
export type OpenLetterCounts = { total: number; byEntity: Record<string, number> };

// Every column but the payload: a list reads its rows' reasons, not their (often large) mapped payloads.
const LIST_COLUMNS = 'id, connection_id, entity, source_id, reason, crm_error, attempts, first_failed_at, last_failed_at, next_retry_at';
const ORDER_BY: Record<OpenLetterOrder, string> = {
  newest: 'last_failed_at DESC, id DESC',
  'next-retry': 'next_retry_at ASC NULLS LAST, id ASC',
};

/** The filter as SQL conditions after the connection ($1), numbered from $2. */
function filterSql(filter: OpenLetterFilter, withEntity: boolean): { where: string; params: unknown[] } {
  const conditions = ['connection_id = $1', 'resolved_at IS NULL'];
  const params: unknown[] = [];
  const add = (condition: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length + 1}`));
  };
  if (withEntity && filter.entity) add((n) => `entity = ${n}`, filter.entity);
  if (filter.sourceIds?.length) add((n) => `source_id = ANY(${n}::text[])`, filter.sourceIds);
  const search = filter.search?.trim();
  if (search) add((n) => `(reason ILIKE ${n} ESCAPE '\\' OR source_id ILIKE ${n} ESCAPE '\\')`, `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return { where: conditions.join(' AND '), params };
}

export function createDeadLetterStore(pool: pg.Pool) {
  const toLetter = (row: Record<string, any>): DeadLetter => ({
    id: Number(row.id),
    connectionId: row.connection_id,
    entity: row.entity,
    sourceId: row.source_id,
    reason: row.reason,
    crmError: row.crm_error ?? undefined,
    payload: row.payload ?? undefined,
    attempts: row.attempts,
    firstFailedAt: row.first_failed_at,
    lastFailedAt: row.last_failed_at,
    nextRetryAt: row.next_retry_at,
  });

  return {
    /** Secrets in the reason, the CRM's error or the payload (a raw row's spaUrl, a token) never reach the table. */
    async record(connectionId: string, entity: string, letters: DeadLetterInput[], client: pg.Pool | pg.PoolClient = pool): Promise<void> {
      if (letters.length === 0) return;
      await client.query(
        `INSERT INTO dead_letters (connection_id, entity, source_id, reason, crm_error, payload, next_retry_at)
         SELECT $1, $2, s, r, e::jsonb, p::jsonb, now() + make_interval(secs => $7)
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS t(s, r, e, p)
         ON CONFLICT (connection_id, entity, source_id) WHERE resolved_at IS NULL DO UPDATE SET
           reason = EXCLUDED.reason,
           crm_error = EXCLUDED.crm_error,
           payload = EXCLUDED.payload,
           attempts = dead_letters.attempts + 1,
           last_failed_at = now(),
           next_retry_at = now() + make_interval(secs => LEAST($8, $7 * power(2, dead_letters.attempts)))`,
        [
          connectionId,
          entity,
          letters.map((l) => l.sourceId),
          letters.map((l) => redactText(l.reason)),
          letters.map((l) => (l.crmError === undefined ? null : JSON.stringify(redactSecrets(l.crmError)))),
          letters.map((l) => (l.payload === undefined ? null : JSON.stringify(redactSecrets(l.payload)))),
          RETRY_BASE_SECONDS,
          RETRY_CAP_SECONDS,
        ],
      );
    },

    async resolve(connectionId: string, entity: string, sourceIds: string[], client: pg.Pool | pg.PoolClient = pool): Promise<number> {
      if (sourceIds.length === 0) return 0;
      const result = await client.query(
        `UPDATE dead_letters SET resolved_at = now() WHERE connection_id = $1 AND entity = $2 AND source_id = ANY($3::text[]) AND resolved_at IS NULL`,
        [connectionId, entity, sourceIds],
      );
      return result.rowCount ?? 0;
    },

    /** Open letters whose retry time has come and whose attempts are under the bound. */
    async due(connectionId: string, entity: string, options: { maxAttempts: number; limit: number; now?: Date }): Promise<DeadLetter[]> {
      const result = await pool.query(
        `SELECT * FROM dead_letters WHERE connection_id = $1 AND entity = $2 AND resolved_at IS NULL
           AND attempts < $3 AND next_retry_at <= $4 ORDER BY next_retry_at LIMIT $5`,
        [connectionId, entity, options.maxAttempts, options.now ?? new Date(), options.limit],
      );
      return result.rows.map(toLetter);
    },

    /** The open letters of these records, to leave a still-failing record alone until its retry time. */
    async openFor(connectionId: string, entity: string, sourceIds: string[], client: pg.Pool | pg.PoolClient = pool): Promise<Map<string, DeadLetter>> {
      if (sourceIds.length === 0) return new Map();
      const result = await client.query(
        `SELECT * FROM dead_letters WHERE connection_id = $1 AND entity = $2 AND source_id = ANY($3::text[]) AND resolved_at IS NULL`,
        [connectionId, entity, sourceIds],
      );
      return new Map(result.rows.map((row) => [row.source_id, toLetter(row)]));
    },

    /** One page of open letters, filtered and ordered in SQL; the payload only when asked for. */
    async pageOpen(connectionId: string, page: OpenLetterPage): Promise<DeadLetter[]> {
      const { where, params } = filterSql(page, true);
      const n = params.length + 2;
      const result = await pool.query(
        `SELECT ${LIST_COLUMNS}${page.withPayload ? ', payload' : ''} FROM dead_letters WHERE ${where}
         ORDER BY ${ORDER_BY[page.order ?? 'newest']} LIMIT $${n} OFFSET $${n + 1}`,
        [connectionId, ...params, page.limit, page.offset ?? 0],
      );
      return result.rows.map(toLetter);
    },

    /**
     * How many open letters the filter matches, and per entity whatever the filter's entity (so a page
     * can offer each entity with its count): a count, no row read out.
     */
    async countOpen(connectionId: string, filter: OpenLetterFilter = {}): Promise<OpenLetterCounts> {
      const { where, params } = filterSql(filter, false);
      const result = await pool.query(`SELECT entity, count(*)::int AS open FROM dead_letters WHERE ${where} GROUP BY entity ORDER BY entity`, [connectionId, ...params]);
      const byEntity = Object.fromEntries(result.rows.map((row) => [row.entity as string, row.open as number]));
      const total = filter.entity ? (byEntity[filter.entity] ?? 0) : Object.values(byEntity).reduce((sum, count) => sum + count, 0);
      return { total, byEntity };
    },

    /** Every open letter with its payload: for the sync's own use, never for a view (see pageOpen). */
    async listOpen(connectionId: string, entity?: string): Promise<DeadLetter[]> {
      const result = await pool.query(
        `SELECT * FROM dead_letters WHERE connection_id = $1 AND ($2::text IS NULL OR entity = $2) AND resolved_at IS NULL ORDER BY last_failed_at DESC`,
        [connectionId, entity ?? null],
      );
      return result.rows.map(toLetter);
    },

    /**
     * "Retry now" from the CLI: make the letters due immediately, whatever their backoff. A second in
     * the past, because callers compare with a millisecond JavaScript clock and now() has microseconds.
     */
    async makeDue(connectionId: string, ids?: number[]): Promise<number> {
      const result = await pool.query(
        `UPDATE dead_letters SET next_retry_at = now() - interval '1 second' WHERE connection_id = $1 AND resolved_at IS NULL AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))`,
        [connectionId, ids ?? null],
      );
      return result.rowCount ?? 0;
    },

    /**
     * `crm-sync dead-letters --retry`: the chosen open letters get fresh attempts (0 used, so even one
     * that had used all of them is due again and under the bound) and are due now. first_failed_at is
     * kept, so a letter retried by hand still shows when it first failed. Returns how many, and how many
     * of them had used all their attempts.
     */
    async retryByHand(connectionId: string, filter: RetryFilter = {}, maxAttempts = MAX_DEAD_LETTER_ATTEMPTS): Promise<{ due: number; hadUsedAllAttempts: number }> {
      const result = await pool.query(
        `WITH chosen AS (
           SELECT id, attempts FROM dead_letters
           WHERE connection_id = $1 AND resolved_at IS NULL
             AND ($2::text IS NULL OR entity = $2) AND ($3::text[] IS NULL OR source_id = ANY($3::text[]))
           FOR UPDATE
         )
         UPDATE dead_letters SET attempts = 0, next_retry_at = now() - interval '1 second'
         FROM chosen WHERE dead_letters.id = chosen.id
         RETURNING chosen.attempts AS previous_attempts`,
        [connectionId, filter.entity ?? null, filter.sourceIds?.length ? filter.sourceIds : null],
      );
      return { due: result.rowCount ?? 0, hadUsedAllAttempts: result.rows.filter((row) => row.previous_attempts >= maxAttempts).length };
    },
  };
}

export type DeadLetterStore = ReturnType<typeof createDeadLetterStore>;
