// Versions of a connection's mapping overrides for one flow (issue #26 section 3). Each save adds the
// next version; a rollback adds an old version's overrides again as a new one, so nothing is rewritten
// and the list always reads as what was in effect, newest first. Overrides hold field names and
// values, never a secret; they are stored as they were saved.
import type pg from 'pg';
import type { EntityOverrides } from '../mappings/overrides.ts';

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export type MappingVersion = {
  connectionId: string;
  flow: string;
  version: number;
  overrides: EntityOverrides;
  savedBy: string;
  savedAt: Date;
  /** The version this one restored, when it was a rollback. */
  rolledBackFrom?: number;
};

function fromRow(row: Record<string, any>): MappingVersion {
  return {
    connectionId: row.connection_id,
    flow: row.flow,
    version: row.version,
    overrides: row.overrides,
    savedBy: row.saved_by,
    savedAt: row.saved_at,
    ...(row.rolled_back_from !== null && { rolledBackFrom: row.rolled_back_from }),
  };
}

export function createMappingVersionStore(pool: Queryable) {
  return {
    /**
     * Adds the next version and answers it. Inside the caller's transaction when given its client; two
     * saves at once cannot take one number (the primary key refuses the second, whose transaction ends).
     */
    async add(entry: { connectionId: string; flow: string; overrides: EntityOverrides; savedBy: string; rolledBackFrom?: number }, client: Queryable = pool): Promise<MappingVersion> {
      const { rows } = await client.query(
        `INSERT INTO mapping_versions (connection_id, flow, version, overrides, saved_by, rolled_back_from)
         SELECT $1, $2, COALESCE(MAX(version), 0) + 1, $3, $4, $5 FROM mapping_versions WHERE connection_id = $1 AND flow = $2
         RETURNING *`,
        [entry.connectionId, entry.flow, JSON.stringify(entry.overrides), entry.savedBy, entry.rolledBackFrom ?? null],
      );
      return fromRow(rows[0]);
    },

    /** Every version of one flow's overrides, newest first. */
    async list(connectionId: string, flow: string, client: Queryable = pool): Promise<MappingVersion[]> {
      const { rows } = await client.query(`SELECT * FROM mapping_versions WHERE connection_id = $1 AND flow = $2 ORDER BY version DESC`, [connectionId, flow]);
      return rows.map(fromRow);
    },

    async get(connectionId: string, flow: string, version: number, client: Queryable = pool): Promise<MappingVersion | undefined> {
      const { rows } = await client.query(`SELECT * FROM mapping_versions WHERE connection_id = $1 AND flow = $2 AND version = $3`, [connectionId, flow, version]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
  };
}

export type MappingVersionStore = ReturnType<typeof createMappingVersionStore>;
