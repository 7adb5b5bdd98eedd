// Leases on a connection's entities, held by a backfill or reconciliation pass while it syncs them: the
// scheduled incremental pass skips a leased entity rather than loading the same records beside it.
// A lease ends when released or when its holder stops renewing it, so a crashed run blocks nothing.
import type pg from 'pg';

export const LEASE_SECONDS = 15 * 60;

export function createEntityLeaseStore(pool: pg.Pool) {
  return {
    /** Takes or renews the leases of `holder` on these entities; an entity another holder leases stays theirs. */
    async claim(connectionId: string, entities: string[], holder: string, seconds = LEASE_SECONDS): Promise<string[]> {
      if (entities.length === 0) return [];
      const { rows } = await pool.query(
        `INSERT INTO entity_leases (connection_id, entity, holder, expires_at)
         SELECT $1, e, $3, now() + make_interval(secs => $4) FROM unnest($2::text[]) AS e
         ON CONFLICT (connection_id, entity) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE entity_leases.holder = EXCLUDED.holder OR entity_leases.expires_at < now()
         RETURNING entity`,
        [connectionId, entities, holder, seconds],
      );
      return rows.map((row) => row.entity);
    },

    /** Who else holds a live lease on this entity, if anyone. */
    async heldByOther(connectionId: string, entity: string, holder: string): Promise<string | undefined> {
      const { rows } = await pool.query(`SELECT holder FROM entity_leases WHERE connection_id = $1 AND entity = $2 AND holder <> $3 AND expires_at >= now()`, [connectionId, entity, holder]);
      return rows[0]?.holder;
    },

    async release(connectionId: string, entities: string[], holder: string): Promise<void> {
      await pool.query(`DELETE FROM entity_leases WHERE connection_id = $1 AND entity = ANY($2::text[]) AND holder = $3`, [connectionId, entities, holder]);
    },
  };
}

export type EntityLeaseStore = ReturnType<typeof createEntityLeaseStore>;
