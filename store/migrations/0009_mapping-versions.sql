-- Up Migration

-- Versions of a connection's mapping overrides, per flow (issue #26 section 3): every save from the
-- console's mapping page adds one, so a person can see what was in effect before and roll back to it
-- (a rollback saves the old overrides again as the newest version: history is only ever added to).
CREATE TABLE mapping_versions (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  flow text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  overrides jsonb NOT NULL,
  saved_by text NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now(),
  rolled_back_from integer,
  PRIMARY KEY (connection_id, flow, version)
);

-- Down Migration
DROP TABLE mapping_versions;
