// Intent rows of the CRM-to-commerce flows: which CRM record asked for which commerce create, and what
// became of it (pending until the create is known to have happened, created with the commerce id, or
// refused with the words of the refusal). See migration 0004.
import type pg from 'pg';

export type IntentState = 'pending' | 'created' | 'refused';
export type Intent = { crmId: string; state: IntentState; commerceId: string | null; payloadHash: string; message: string | null };

type Queryable = pg.Pool | pg.PoolClient;

export function createOutboundIntentStore(pool: pg.Pool) {
  return {
    async get(connectionId: string, flow: string, crmIds: string[], client: Queryable = pool): Promise<Map<string, Intent>> {
      if (crmIds.length === 0) return new Map();
      const { rows } = await client.query(
        `SELECT crm_id, state, commerce_id, payload_hash, message FROM outbound_intents WHERE connection_id = $1 AND flow = $2 AND crm_id = ANY($3::text[])`,
        [connectionId, flow, crmIds],
      );
      return new Map(rows.map((row) => [row.crm_id, { crmId: row.crm_id, state: row.state, commerceId: row.commerce_id, payloadHash: row.payload_hash, message: row.message }]));
    },

    /** Records each intent's state; a created one never goes back to pending or refused. */
    async put(connectionId: string, flow: string, intents: Intent[], client: Queryable = pool): Promise<void> {
      if (intents.length === 0) return;
      await client.query(
        `INSERT INTO outbound_intents (connection_id, flow, crm_id, state, commerce_id, payload_hash, message)
         SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         ON CONFLICT (connection_id, flow, crm_id) DO UPDATE SET
           state = EXCLUDED.state, commerce_id = COALESCE(EXCLUDED.commerce_id, outbound_intents.commerce_id),
           payload_hash = EXCLUDED.payload_hash, message = EXCLUDED.message, updated_at = now()
         WHERE outbound_intents.state <> 'created' OR EXCLUDED.state = 'created'`,
        [connectionId, flow, intents.map((i) => i.crmId), intents.map((i) => i.state), intents.map((i) => i.commerceId), intents.map((i) => i.payloadHash), intents.map((i) => i.message)],
      );
    },

    async count(connectionId: string, flow: string, state?: IntentState): Promise<number> {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM outbound_intents WHERE connection_id = $1 AND flow = $2 AND ($3::text IS NULL OR state = $3)`, [connectionId, flow, state ?? null]);
      return rows[0].n;
    },
  };
}

export type OutboundIntentStore = ReturnType<typeof createOutboundIntentStore>;
