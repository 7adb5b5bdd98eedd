// The re-authorisation mark of a connection: set when a side refuses its credentials, read before every
// run, cleared by saving new secrets (store/connections.ts update). Needs no secret box.
import type pg from 'pg';
import { redactText } from './redact.ts';

export type Reauthorisation = { reason: string; since: Date };

export function createReauthorisationStore(pool: pg.Pool) {
  return {
    /**
     * Marks the connection (since the first refusal); updated_at stays, so cached clients stay too. The
     * reason, a side's refusal in its own words, is redacted as dead letters are: it may quote a token.
     */
    async mark(connectionId: string, reason: string): Promise<void> {
      await pool.query(
        'UPDATE connections SET reauthorisation_reason = $2, reauthorisation_since = COALESCE(reauthorisation_since, now()) WHERE id = $1',
        [connectionId, redactText(reason)],
      );
    },
    async get(connectionId: string): Promise<Reauthorisation | undefined> {
      const { rows } = await pool.query('SELECT reauthorisation_reason, reauthorisation_since FROM connections WHERE id = $1', [connectionId]);
      const row = rows[0];
      return row?.reauthorisation_reason ? { reason: row.reauthorisation_reason, since: row.reauthorisation_since } : undefined;
    },
  };
}
