// Record links: which CRM record each commerce record became and the hash of what was last written.
// Writes are batch upserts on the primary key, so replaying a page leaves the same rows.
import type pg from 'pg';

export type RecordLink = {
  sourceId: string;
  crmObject: string;
  crmId: string | null;
  contentHash: string;
  /** The commerce record's lastUpdateTime the CRM record was written from (unset on links made before versions). */
  sourceVersion?: Date | null;
  /** The CRM id the commerce record carried when it was last written (a different one later is a relink). */
  carriedId?: string | null;
  /**
   * The commerce record's lastUpdateTime when the CRM was last known in step with it: as read when it
   * was written or found unchanged, or as our own write-back's answer left it (sync/write-back-stamps.ts).
   */
  knownVersion?: Date | null;
  /** A hash of that record besides its write bookkeeping (sync/write-back-stamps.ts: stampHash). */
  knownHash?: string | null;
};

/** A commerce record's stamp and hash at which the CRM is in step with it. */
export type KnownStamp = { sourceId: string; version: Date; hash: string };

type Queryable = pg.Pool | pg.PoolClient;

export function createRecordLinkStore(pool: pg.Pool) {
  return {
    async get(connectionId: string, entity: string, sourceIds: string[], client: Queryable = pool): Promise<Map<string, RecordLink>> {
      if (sourceIds.length === 0) return new Map();
      const result = await client.query(
        `SELECT source_id, crm_object, crm_id, content_hash, source_version, carried_id, known_version, known_hash FROM record_links
         WHERE connection_id = $1 AND entity = $2 AND source_id = ANY($3::text[])`,
        [connectionId, entity, sourceIds],
      );
      return new Map(result.rows.map((row) => [row.source_id, { sourceId: row.source_id, crmObject: row.crm_object, crmId: row.crm_id, contentHash: row.content_hash, sourceVersion: row.source_version, carriedId: row.carried_id, knownVersion: row.known_version, knownHash: row.known_hash }]));
    },

    /** Never moves a link back to an older source version than the one it records. */
    async upsert(connectionId: string, entity: string, links: RecordLink[], client: Queryable = pool): Promise<void> {
      if (links.length === 0) return;
      await client.query(
        `INSERT INTO record_links (connection_id, entity, source_id, crm_object, crm_id, content_hash, source_version, carried_id)
         SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
         ON CONFLICT (connection_id, entity, source_id) DO UPDATE SET
           crm_object = EXCLUDED.crm_object,
           crm_id = COALESCE(EXCLUDED.crm_id, record_links.crm_id),
           content_hash = EXCLUDED.content_hash,
           source_version = COALESCE(EXCLUDED.source_version, record_links.source_version),
           carried_id = EXCLUDED.carried_id,
           updated_at = now(),
           synced_at = now()
         WHERE record_links.source_version IS NULL OR EXCLUDED.source_version IS NULL OR EXCLUDED.source_version >= record_links.source_version`,
        [
          connectionId,
          entity,
          links.map((l) => l.sourceId),
          links.map((l) => l.crmObject),
          links.map((l) => l.crmId),
          links.map((l) => l.contentHash),
          links.map((l) => l.sourceVersion ?? null),
          links.map((l) => l.carriedId ?? null),
        ],
      );
    },

    /**
     * Keeps the stamps at which the CRM is in step with the commerce records, on their links. A stamp
     * older than the link's source version (a newer write of the record landed meanwhile) is not kept.
     */
    async recordKnown(connectionId: string, entity: string, stamps: KnownStamp[], client: Queryable = pool): Promise<void> {
      if (stamps.length === 0) return;
      await client.query(
        `UPDATE record_links AS link SET known_version = stamp.version, known_hash = stamp.hash
         FROM unnest($3::text[], $4::timestamptz[], $5::text[]) AS stamp (source_id, version, hash)
         WHERE link.connection_id = $1 AND link.entity = $2 AND link.source_id = stamp.source_id
           AND (link.source_version IS NULL OR stamp.version >= link.source_version)`,
        [connectionId, entity, stamps.map((s) => s.sourceId), stamps.map((s) => s.version), stamps.map((s) => s.hash)],
      );
    },

    async count(connectionId: string, entity?: string): Promise<number> {
      const result = await pool.query(
        `SELECT count(*)::int AS n FROM record_links WHERE connection_id = $1 AND ($2::text IS NULL OR entity = $2)`,
        [connectionId, entity ?? null],
      );
      return result.rows[0].n;
    },

    /** "Forget the record links": the next sync compares nothing and writes every record again (by external id). */
    async forget(connectionId: string, entities?: string[]): Promise<number> {
      const result = await pool.query(`DELETE FROM record_links WHERE connection_id = $1 AND ($2::text[] IS NULL OR entity = ANY($2::text[]))`, [connectionId, entities ?? null]);
      return result.rowCount ?? 0;
    },
  };
}

export type RecordLinkStore = ReturnType<typeof createRecordLinkStore>;
