-- Up Migration

-- A connection ties one commerce organization to one CRM. Secrets (client secrets, tokens) are kept
-- only as AES-256-GCM ciphertext; `settings` holds what is safe to show (URLs, ids, schedules, mappings).
CREATE TABLE connections (
  id                 text PRIMARY KEY,
  name               text NOT NULL UNIQUE,
  crm_kind           text NOT NULL CHECK (crm_kind IN ('salesforce', 'hubspot', 'dynamics')),
  settings           jsonb NOT NULL DEFAULT '{}'::jsonb,
  secrets_ciphertext bytea NOT NULL,
  secrets_key_id     text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

-- Where the incremental sync of one entity stands: (lastUpdateTime, id) so that many records sharing
-- one timestamp are neither skipped nor read forever.
CREATE TABLE sync_cursors (
  connection_id    text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  entity           text NOT NULL,
  last_update_time timestamptz,
  last_id          text,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, entity)
);

-- Which CRM record a commerce record became, and the hash of what was last written there:
-- an unchanged hash means no CRM write.
CREATE TABLE record_links (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  entity        text NOT NULL,
  source_id     text NOT NULL,
  crm_object    text NOT NULL,
  crm_id        text,
  content_hash  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  synced_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, entity, source_id)
);
CREATE INDEX record_links_by_crm_id ON record_links (connection_id, crm_object, crm_id);

-- A record the CRM (or our own validation) rejected: kept with the reason and the mapped payload,
-- retried on later runs up to a bound, never blocking the rest of its batch.
CREATE TABLE dead_letters (
  id              bigserial PRIMARY KEY,
  connection_id   text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  entity          text NOT NULL,
  source_id       text NOT NULL,
  reason          text NOT NULL,
  crm_error       jsonb,
  payload         jsonb,
  attempts        integer NOT NULL DEFAULT 1,
  first_failed_at timestamptz NOT NULL DEFAULT now(),
  last_failed_at  timestamptz NOT NULL DEFAULT now(),
  next_retry_at   timestamptz,
  resolved_at     timestamptz
);
CREATE UNIQUE INDEX dead_letters_one_open_per_record
  ON dead_letters (connection_id, entity, source_id) WHERE resolved_at IS NULL;

-- One row per sync workflow run (scheduled, near-real-time or backfill) with its counters.
CREATE TABLE sync_runs (
  id            text PRIMARY KEY,
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('incremental', 'realtime', 'backfill')),
  status        text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  started_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  counts        jsonb NOT NULL DEFAULT '{}'::jsonb,
  error         text
);
CREATE INDEX sync_runs_by_connection ON sync_runs (connection_id, started_at DESC);

-- Proof of life of the scheduled loop: one row per scheduled heartbeat workflow, keyed by its
-- workflow id so that a replayed activity never adds a second row.
CREATE TABLE heartbeats (
  beat_id         text PRIMARY KEY,
  workflow_start  timestamptz NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  worker_identity text NOT NULL
);

-- Down Migration
DROP TABLE heartbeats;
DROP TABLE sync_runs;
DROP TABLE dead_letters;
DROP TABLE record_links;
DROP TABLE sync_cursors;
DROP TABLE connections;
