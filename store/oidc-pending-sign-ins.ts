// OpenID Connect sign-ins in progress, in PostgreSQL (table oidc_pending_sign_ins): started on one
// replica, their callback may land on any other. Keyed by the SHA-256 of the sign-in cookie's id; the PKCE
// verifier is derived from that id (admin/oidc.ts) and never stored. Taking an entry deletes it, so a
// callback is used once, on whichever replica gets it first.
import type pg from 'pg';
import { pendingIdHash, type PendingSignIn, type PendingSignInStore } from '../admin/oidc.ts';
import { ask } from './console-sessions.ts';

/** Expired rows deleted per sign-in started (a bounded sweep; starts are throttled per address). */
const SWEEP_LIMIT = 100;

export function createPostgresPendingSignIns(pool: pg.Pool, clock: () => number = Date.now): PendingSignInStore {
  return {
    async put(pendingId, entry) {
      await ask(
        pool,
        'keep the sign-in in progress',
        `WITH swept AS (
           DELETE FROM oidc_pending_sign_ins WHERE id_hash IN (
             SELECT id_hash FROM oidc_pending_sign_ins WHERE expires_at <= $6 ORDER BY expires_at LIMIT ${SWEEP_LIMIT} FOR UPDATE SKIP LOCKED))
         INSERT INTO oidc_pending_sign_ins (id_hash, state, nonce, next_path, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [pendingIdHash(pendingId), entry.state, entry.nonce, entry.next, new Date(entry.expiresAt), new Date(clock())],
      );
    },
    async take(pendingId) {
      const { rows } = await ask<{ state: string; nonce: string; next_path: string; expires_at: Date }>(
        pool,
        'find the sign-in in progress',
        'DELETE FROM oidc_pending_sign_ins WHERE id_hash = $1 RETURNING state, nonce, next_path, expires_at',
        [pendingIdHash(pendingId)],
      );
      const row = rows[0];
      return row && ({ state: row.state, nonce: row.nonce, next: row.next_path, expiresAt: row.expires_at.getTime() } satisfies PendingSignIn);
    },
  };
}
