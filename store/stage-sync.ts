// The stage_sync rows (migration 0005): what both sides of a co-sell pair agreed on last, and a stage
// change the commerce side refused for now, with its reason and when to try again.
import type pg from 'pg';
import { redactText } from './redact.ts';

export type StagePair = { referralId: string; crmId: string; origin: 'crm' | 'commerce' };
export type StageRow = {
  referralId: string;
  crmId: string;
  commerceStage: string | null;
  crmStage: string | null;
  commerceStamp: Date | null;
  crmStamp: Date | null;
  pendingSide: 'commerce' | 'crm' | null;
  pendingStage: string | null;
  pendingReason: string | null;
  pendingAttempts: number;
  nextTryAt: Date | null;
};

const toRow = (row: Record<string, any>): StageRow => ({
  referralId: row.referral_id,
  crmId: row.crm_id,
  commerceStage: row.commerce_stage,
  crmStage: row.crm_stage,
  commerceStamp: row.commerce_stamp,
  crmStamp: row.crm_stamp,
  pendingSide: row.pending_side,
  pendingStage: row.pending_stage,
  pendingReason: row.pending_reason,
  pendingAttempts: row.pending_attempts,
  nextTryAt: row.next_try_at,
});

export function createStageSyncStore(pool: pg.Pool) {
  return {
    /** Referral <-> CRM record pairs: referrals made from CRM records, and CRM records made for inbound referrals. */
    async pairs(connectionId: string, by: { referralIds?: string[]; crmIds?: string[] }): Promise<StagePair[]> {
      const { rows } = await pool.query(
        `SELECT commerce_id AS referral_id, crm_id, 'crm' AS origin FROM outbound_intents
           WHERE connection_id = $1 AND flow = 'opportunity-referral' AND state = 'created' AND (commerce_id = ANY($2::text[]) OR crm_id = ANY($3::text[]))
         UNION ALL
         SELECT source_id, crm_id, 'commerce' FROM record_links
           WHERE connection_id = $1 AND entity = 'inbound-referral' AND crm_id IS NOT NULL AND (source_id = ANY($2::text[]) OR crm_id = ANY($3::text[]))`,
        [connectionId, by.referralIds ?? [], by.crmIds ?? []],
      );
      return rows.map((row) => ({ referralId: row.referral_id, crmId: row.crm_id, origin: row.origin }));
    },

    async get(connectionId: string, referralIds: string[]): Promise<Map<string, StageRow>> {
      if (referralIds.length === 0) return new Map();
      const { rows } = await pool.query(`SELECT * FROM stage_sync WHERE connection_id = $1 AND referral_id = ANY($2::text[])`, [connectionId, referralIds]);
      return new Map(rows.map((row) => [row.referral_id, toRow(row)]));
    },

    /** Pairs with a refused change whose time to try again has come. */
    async due(connectionId: string, now: Date, limit = 200): Promise<StageRow[]> {
      const { rows } = await pool.query(`SELECT * FROM stage_sync WHERE connection_id = $1 AND pending_stage IS NOT NULL AND next_try_at <= $2 ORDER BY next_try_at LIMIT $3`, [connectionId, now, limit]);
      return rows.map(toRow);
    },

    async put(connectionId: string, row: StageRow): Promise<void> {
      await pool.query(
        `INSERT INTO stage_sync (connection_id, referral_id, crm_id, commerce_stage, crm_stage, commerce_stamp, crm_stamp, pending_side, pending_stage, pending_reason, pending_attempts, next_try_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (connection_id, referral_id) DO UPDATE SET crm_id = EXCLUDED.crm_id, commerce_stage = EXCLUDED.commerce_stage, crm_stage = EXCLUDED.crm_stage,
           commerce_stamp = EXCLUDED.commerce_stamp, crm_stamp = EXCLUDED.crm_stamp, pending_side = EXCLUDED.pending_side, pending_stage = EXCLUDED.pending_stage,
           pending_reason = EXCLUDED.pending_reason, pending_attempts = EXCLUDED.pending_attempts, next_try_at = EXCLUDED.next_try_at, updated_at = now()`,
        [connectionId, row.referralId, row.crmId, row.commerceStage, row.crmStage, row.commerceStamp, row.crmStamp, row.pendingSide, row.pendingStage, row.pendingReason && redactText(row.pendingReason), row.pendingAttempts, row.nextTryAt],
      );
    },

    async pending(connectionId: string): Promise<StageRow[]> {
      const { rows } = await pool.query(`SELECT * FROM stage_sync WHERE connection_id = $1 AND pending_stage IS NOT NULL ORDER BY next_try_at`, [connectionId]);
      return rows.map(toRow);
    },
  };
}
