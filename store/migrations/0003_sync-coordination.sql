-- Up Migration

-- The commerce record's version (its lastUpdateTime) that a link's CRM record was last written from:
-- a writer holding an older snapshot (a slow incremental page after a fast notification) never
-- overwrites a newer one, neither in the CRM nor in the link.
ALTER TABLE record_links ADD COLUMN source_version timestamptz;

-- The CRM id the commerce record itself carried (metaInfo.crmAOpportunityId, ...) when it was last
-- written: a carried id that differs from both this and the link is a relink by the seller.
ALTER TABLE record_links ADD COLUMN carried_id text;

-- The reconciliation pass records its runs too.
ALTER TABLE sync_runs DROP CONSTRAINT sync_runs_kind_check;
ALTER TABLE sync_runs ADD CONSTRAINT sync_runs_kind_check CHECK (kind IN ('incremental', 'realtime', 'backfill', 'reconcile'));

-- A backfill or reconciliation pass leases the entities it is syncing, so the scheduled incremental pass
-- of the same connection skips them instead of loading the same records beside it. A lease expires on
-- its own when its holder stops renewing it (a crashed or terminated run never blocks the connection).
CREATE TABLE entity_leases (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  entity        text NOT NULL,
  holder        text NOT NULL,
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (connection_id, entity)
);

-- Down Migration
DROP TABLE entity_leases;
ALTER TABLE sync_runs DROP CONSTRAINT sync_runs_kind_check;
ALTER TABLE sync_runs ADD CONSTRAINT sync_runs_kind_check CHECK (kind IN ('incremental', 'realtime', 'backfill'));
ALTER TABLE record_links DROP COLUMN carried_id;
ALTER TABLE record_links DROP COLUMN source_version;
