-- Up Migration

-- Creates on the commerce side (a referral, a draft offer) are not idempotent by nature. Before the
-- call, an intent row says which CRM record asked for what; before any retry the worker looks for a
-- commerce record already carrying that CRM record's id and adopts it, so a create whose answer was
-- lost never makes a second one. A refusal (validation, the partner's rules) is kept with its words
-- and the hash of what was refused, so an unchanged record is not sent again.
CREATE TABLE outbound_intents (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  flow          text NOT NULL,
  crm_id        text NOT NULL,
  state         text NOT NULL CHECK (state IN ('pending', 'created', 'refused')),
  commerce_id   text,
  payload_hash  text NOT NULL,
  message       text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, flow, crm_id)
);

ALTER TABLE sync_runs DROP CONSTRAINT sync_runs_kind_check;
ALTER TABLE sync_runs ADD CONSTRAINT sync_runs_kind_check CHECK (kind IN ('incremental', 'realtime', 'backfill', 'reconcile', 'cosell'));

-- Down Migration
ALTER TABLE sync_runs DROP CONSTRAINT sync_runs_kind_check;
ALTER TABLE sync_runs ADD CONSTRAINT sync_runs_kind_check CHECK (kind IN ('incremental', 'realtime', 'backfill', 'reconcile'));
DROP TABLE outbound_intents;
