// The console's sessions in PostgreSQL (table console_sessions), for every replica's admin server alike:
// a session made on one is read on any other, ending it on one ends it everywhere, a restart keeps it.
// Rows are keyed by the SHA-256 of the cookie's id; the id itself never reaches the database. Times come
// from the admin server's clock, not the database's, so a test that moves the clock sees a session end.
import type pg from 'pg';
import {
  csrfTokenFor,
  DEFAULT_SESSION_LIFETIME_MS,
  newSessionId,
  sessionIdHash,
  TOKEN_IDENTITY,
  type SessionIdentity,
  type SessionStore,
  type SessionStoreOptions,
} from '../admin/console/sessions.ts';

/** Expired rows deleted per session made: bounded, so a sign-in never waits on a large sweep; one made adds one row, so a hundred keep up. */
const SWEEP_LIMIT = 100;

export function createPostgresSessionStore(pool: pg.Pool, options: SessionStoreOptions = {}): SessionStore {
  const clock = options.clock ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS;
  return {
    clock,
    async create(identity = TOKEN_IDENTITY) {
      const id = newSessionId();
      const now = clock();
      const expiresAt = now + lifetimeMs;
      // SKIP LOCKED: replicas making sessions at once sweep different rows instead of waiting on each other.
      await ask(
        pool,
        'keep a new session',
        `WITH swept AS (
           DELETE FROM console_sessions WHERE id_hash IN (
             SELECT id_hash FROM console_sessions WHERE expires_at <= $4 ORDER BY expires_at LIMIT ${SWEEP_LIMIT} FOR UPDATE SKIP LOCKED))
         INSERT INTO console_sessions (id_hash, identity, expires_at) VALUES ($1, $2, $3)`,
        [sessionIdHash(id), JSON.stringify(identityToKeep(identity)), new Date(expiresAt), new Date(now)],
      );
      return { id, csrf: csrfTokenFor(id), expiresAt, identity };
    },
    async get(id) {
      if (!id) return undefined;
      const { rows } = await ask<{ identity: SessionIdentity; flash: string | null; expires_at: Date }>(
        pool,
        'read the session',
        'SELECT identity, flash, expires_at FROM console_sessions WHERE id_hash = $1 AND expires_at > $2',
        [sessionIdHash(id), new Date(clock())],
      );
      const row = rows[0];
      if (!row) return undefined;
      return { id, csrf: csrfTokenFor(id), expiresAt: row.expires_at.getTime(), identity: row.identity, ...(row.flash !== null && { flash: row.flash }) };
    },
    async saveFlash(id, flash) {
      await ask(pool, "keep the session's message", 'UPDATE console_sessions SET flash = $2 WHERE id_hash = $1', [sessionIdHash(id), flash ?? null]);
    },
    async end(id) {
      await ask(pool, 'end the session', 'DELETE FROM console_sessions WHERE id_hash = $1', [sessionIdHash(id)]);
    },
  };
}

/** Only the fields an identity has: whatever else an object carried never reaches the table. */
function identityToKeep(identity: SessionIdentity): SessionIdentity {
  if (identity.via === 'token') return { via: 'token', role: 'admin' };
  const { subject, name, email } = identity.person;
  return { via: 'oidc', role: identity.role, person: { subject, name, ...(email !== undefined && { email }) } };
}

/** A query whose failure says what the console was doing, keeping PostgreSQL's own words. */
export async function ask<Row extends pg.QueryResultRow = pg.QueryResultRow>(pool: pg.Pool, doing: string, sql: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
  try {
    return await pool.query<Row>(sql, values);
  } catch (error) {
    throw new Error(`The console could not ${doing} in PostgreSQL: ${(error as Error).message}`, { cause: error });
  }
}
