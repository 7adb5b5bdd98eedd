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

    async reset(connectionId: string, entities?: string[]): Promise<number> {
      const result = await pool.query(`DELETE FROM sync_cursors WHERE connection_id = $1 AND ($2::text[] IS NULL OR entity = ANY($2::text[]))`, [connectionId, entities ?? null]);
      return result.rowCount ?? 0;
    },
  };
}

export type CursorStore = ReturnType<typeof createCursorStore>;
