// Intent rows of the CRM-to-commerce flows: which CRM record asked for which commerce create, and what
// became of it (pending until the create is known to have happened, created with the commerce id, or
// refused with the words of the refusal). See migration 0004.
import type pg from 'pg';
import { redactText } from './redact.ts';

export type IntentState = 'pending' | 'created' | 'refused';
export type Intent = { crmId: string; state: IntentState; commerceId: string | null; payloadHash: string; message: string | null };
/** Who holds a pending create: one attempt of one activity (migration 0006). */
export type Claimant = { activity: string; attempt: number };
/** A row a claim took, with who held it before (nobody: a create never tried) and until when their create may still land. */
export type Claimed = { crmId: string; before: Claimant | null; adoptAfter: Date | null };

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
           payload_hash = EXCLUDED.payload_hash, message = EXCLUDED.message, updated_at = now(),
           claim_activity = CASE WHEN EXCLUDED.state = 'pending' THEN outbound_intents.claim_activity END,
           claim_attempt = CASE WHEN EXCLUDED.state = 'pending' THEN outbound_intents.claim_attempt END,
           adopt_after = CASE WHEN EXCLUDED.state = 'pending' THEN outbound_intents.adopt_after END
         WHERE outbound_intents.state <> 'created' OR EXCLUDED.state = 'created'`,
        [connectionId, flow, intents.map((i) => i.crmId), intents.map((i) => i.state), intents.map((i) => i.commerceId), intents.map((i) => i.payloadHash), intents.map((i) => i.message && redactText(i.message))],
      );
    },

    /**
     * Claims pending rows for one attempt about to create them: it holds them from now, and a commerce
     * record it makes is surely visible from `holdSeconds` on. A row held by a later attempt of the same
     * activity (this one outlived its heartbeat and was retried) is not taken; neither is one no longer
     * pending. Returns the rows taken, each with who held it before and until when.
     */
    async claim(connectionId: string, flow: string, crmIds: string[], claimant: Claimant, holdSeconds: number): Promise<Claimed[]> {
      if (crmIds.length === 0) return [];
      const { rows } = await pool.query(
        `WITH prior AS (
           SELECT crm_id, claim_activity, claim_attempt, adopt_after FROM outbound_intents
           WHERE connection_id = $1 AND flow = $2 AND crm_id = ANY($3::text[]) AND state = 'pending'
             AND NOT (claim_activity IS NOT DISTINCT FROM $4 AND claim_attempt > $5)
           FOR UPDATE
         )
         UPDATE outbound_intents AS o SET claim_activity = $4, claim_attempt = $5, adopt_after = now() + make_interval(secs => $6), updated_at = now()
         FROM prior WHERE o.connection_id = $1 AND o.flow = $2 AND o.crm_id = prior.crm_id
         RETURNING o.crm_id, prior.claim_activity, prior.claim_attempt, prior.adopt_after`,
        [connectionId, flow, crmIds, claimant.activity, claimant.attempt, holdSeconds],
      );
      return rows.map((row) => ({ crmId: row.crm_id, before: row.claim_activity === null ? null : { activity: row.claim_activity, attempt: row.claim_attempt }, adoptAfter: row.adopt_after }));
    },

    /**
     * After a create call failed without an answer: whatever it sent was sent before now, so it is surely
     * visible `holdSeconds` from now (often sooner than the claim said). Only rows this attempt still holds.
     */
    async holdFromNow(connectionId: string, flow: string, crmIds: string[], claimant: Claimant, holdSeconds: number): Promise<void> {
      if (crmIds.length === 0) return;
      await pool.query(
        `UPDATE outbound_intents SET adopt_after = LEAST(adopt_after, now() + make_interval(secs => $6)), updated_at = now()
         WHERE connection_id = $1 AND flow = $2 AND crm_id = ANY($3::text[]) AND state = 'pending' AND claim_activity = $4 AND claim_attempt = $5`,
        [connectionId, flow, crmIds, claimant.activity, claimant.attempt, holdSeconds],
      );
    },

    async count(connectionId: string, flow: string, state?: IntentState): Promise<number> {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM outbound_intents WHERE connection_id = $1 AND flow = $2 AND ($3::text IS NULL OR state = $3)`, [connectionId, flow, state ?? null]);
      return rows[0].n;
    },
  };
}

export type OutboundIntentStore = ReturnType<typeof createOutboundIntentStore>;
