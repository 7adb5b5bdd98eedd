-- Up Migration

-- Stages kept in step both ways: per referral and its CRM opportunity, the stages both sides held when
-- they last agreed (each in its own words) and each side's own modification stamp then, so a change read
-- back is recognised as our own echo and a conflict is judged by each side's own clock. A change the
-- commerce side refuses for now (the partner is reviewing the referral) is kept here with its reason and
-- tried again later with a growing delay: never lost, never retried in a tight loop.
CREATE TABLE stage_sync (
  connection_id    text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  referral_id      text NOT NULL,
  crm_id           text NOT NULL,
  commerce_stage   text,
  crm_stage        text,
  commerce_stamp   timestamptz,
  crm_stamp        timestamptz,
  pending_side     text CHECK (pending_side IN ('commerce', 'crm')),
  pending_stage    text,
  pending_reason   text,
  pending_attempts integer NOT NULL DEFAULT 0,
  next_try_at      timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, referral_id)
);
CREATE INDEX stage_sync_pending ON stage_sync (connection_id, next_try_at) WHERE pending_stage IS NOT NULL;

-- Down Migration
DROP TABLE stage_sync;
