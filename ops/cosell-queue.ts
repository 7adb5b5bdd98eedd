// A connection's co-sell queue as revenue ops reads it: CRM records that asked for a referral or a draft
// offer and wait for it, those the commerce side refused (with its reasons, which also went back onto the
// CRM record), and stage edits queued for a side that has not taken them yet.
import type pg from 'pg';

export type CosellAsk = { flow: string; crmId: string; state: 'pending' | 'created' | 'refused'; commerceId: string | null; message: string | null; updatedAt: Date };
export type QueuedStage = { referralId: string; crmId: string; side: string; stage: string; reason: string | null; attempts: number; nextTryAt: Date | null };

export type CosellQueue = { waiting: CosellAsk[]; refused: CosellAsk[]; made: number; queuedStages: QueuedStage[] };

export async function cosellQueue(pool: pg.Pool, connectionId: string, limit = 100): Promise<CosellQueue> {
  const [asks, made, stages] = await Promise.all([
    pool.query(
      `SELECT flow, crm_id, state, commerce_id, message, updated_at FROM outbound_intents
       WHERE connection_id = $1 AND state IN ('pending', 'refused') ORDER BY updated_at DESC LIMIT $2`,
      [connectionId, limit],
    ),
    pool.query(`SELECT count(*)::int AS made FROM outbound_intents WHERE connection_id = $1 AND state = 'created'`, [connectionId]),
    pool.query(
      `SELECT referral_id, crm_id, pending_side, pending_stage, pending_reason, pending_attempts, next_try_at FROM stage_sync
       WHERE connection_id = $1 AND pending_stage IS NOT NULL ORDER BY next_try_at NULLS FIRST LIMIT $2`,
      [connectionId, limit],
    ),
  ]);
  const all: CosellAsk[] = asks.rows.map((row) => ({ flow: row.flow, crmId: row.crm_id, state: row.state, commerceId: row.commerce_id, message: row.message, updatedAt: row.updated_at }));
  return {
    waiting: all.filter((ask) => ask.state === 'pending'),
    refused: all.filter((ask) => ask.state === 'refused'),
    made: made.rows[0].made,
    queuedStages: stages.rows.map((row) => ({ referralId: row.referral_id, crmId: row.crm_id, side: row.pending_side, stage: row.pending_stage, reason: row.pending_reason, attempts: row.pending_attempts, nextTryAt: row.next_try_at })),
  };
}
