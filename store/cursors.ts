// Sync cursors: (lastUpdateTime, id) per connection and entity. A cursor only moves forward.
import type pg from 'pg';

export type Cursor = { time: Date; id: string };

export function createCursorStore(pool: pg.Pool) {
  return {
    async get(connectionId: string, entity: string): Promise<Cursor | undefined> {
      const result = await pool.query(`SELECT last_update_time, last_id FROM sync_cursors WHERE connection_id = $1 AND entity = $2`, [connectionId, entity]);
      const row = result.rows[0];
      return row?.last_update_time ? { time: row.last_update_time, id: row.last_id ?? '' } : undefined;
    },

    /** Moves the cursor to `cursor` unless it already stands further (a replayed page cannot move it back). */
    async advance(connectionId: string, entity: string, cursor: Cursor, client: pg.Pool | pg.PoolClient = pool): Promise<void> {
      await client.query(
        `INSERT INTO sync_cursors (connection_id, entity, last_update_time, last_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (connection_id, entity) DO UPDATE SET last_update_time = EXCLUDED.last_update_time, last_id = EXCLUDED.last_id, updated_at = now()
         WHERE (sync_cursors.last_update_time, sync_cursors.last_id) < (EXCLUDED.last_update_time, EXCLUDED.last_id)
            OR sync_cursors.last_update_time IS NULL`,
        [connectionId, entity, cursor.time, cursor.id],
      );
    },

    /**
     * After a backfill or reconciliation pass has synced everything of an entity from `from` up to
     * `cursor`, the incremental cursor may move there too, but only when nothing between the stored
     * cursor and `cursor` is left out: the pass started at or before the stored cursor (or at the
     * beginning, when there is none). Then the first incremental run after a backfill starts near now.
     */
    async advanceIfCovered(connectionId: string, entity: string, cursor: Cursor, from: Date, client: pg.Pool | pg.PoolClient = pool): Promise<boolean> {
      const result = await client.query(
        `INSERT INTO sync_cursors (connection_id, entity, last_update_time, last_id)
         SELECT $1, $2, $3, $4 WHERE $5::timestamptz <= 'epoch'::timestamptz
         ON CONFLICT (connection_id, entity) DO NOTHING`,
        [connectionId, entity, cursor.time, cursor.id, from],
      );
      if ((result.rowCount ?? 0) > 0) return true;
      const moved = await client.query(
        `UPDATE sync_cursors SET last_update_time = $3, last_id = $4, updated_at = now()
         WHERE connection_id = $1 AND entity = $2 AND $5::timestamptz <= last_update_time
           AND (last_update_time, last_id) < ($3::timestamptz, $4::text)`,
        [connectionId, entity, cursor.time, cursor.id, from],
      );
      return (moved.rowCount ?? 0) > 0;
    },

    async reset(connectionId: string, entities?: string[]): Promise<number> {
      const result = await pool.query(`DELETE FROM sync_cursors WHERE connection_id = $1 AND ($2::text[] IS NULL OR entity = ANY($2::text[]))`, [connectionId, entities ?? null]);
      return result.rowCount ?? 0;
    },
  };
}

export type CursorStore = ReturnType<typeof createCursorStore>;
