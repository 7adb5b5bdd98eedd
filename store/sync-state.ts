// What a connection has learnt about its two sides while syncing: record links (commerce id -> CRM id
// and content hash), cursors (also the notification feed's offset) and open dead letters. All of it
// belongs to one commerce organization and one CRM org; when either changes it must go together.
import type pg from 'pg';

export type ForgottenSyncState = { recordLinks: number; cursors: number; openDeadLetters: number };

/**
 * Forgets the connection's record links, cursors and open dead letters. Run it inside the caller's
 * transaction (with the settings change that made it necessary), so neither is saved without the other.
 */
export async function forgetSyncState(client: pg.PoolClient, connectionId: string): Promise<ForgottenSyncState> {
  const links = await client.query('DELETE FROM record_links WHERE connection_id = $1', [connectionId]);
  const cursors = await client.query('DELETE FROM sync_cursors WHERE connection_id = $1', [connectionId]);
  const letters = await client.query('DELETE FROM dead_letters WHERE connection_id = $1 AND resolved_at IS NULL', [connectionId]);
  return { recordLinks: links.rowCount ?? 0, cursors: cursors.rowCount ?? 0, openDeadLetters: letters.rowCount ?? 0 };
}
