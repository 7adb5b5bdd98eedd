-- Up Migration

-- The audit trail (issue #26 section 2): every action that changes something, from the console, the CLI
-- or the API: who (a signed-in person, the admin token, or the CLI as an OS user), when, what, on which
-- connection, and for settings and mappings the value before and after (secrets redacted before they are
-- stored: a row never holds one). Rows are only ever added.
CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor_kind text NOT NULL CHECK (actor_kind IN ('person', 'token', 'cli', 'system')),
  actor text NOT NULL,
  via text NOT NULL CHECK (via IN ('console', 'api', 'cli', 'worker')),
  action text NOT NULL,
  connection_id text,
  target text,
  before jsonb,
  after jsonb,
  detail jsonb
);
CREATE INDEX audit_events_newest ON audit_events (at DESC, id DESC);
CREATE INDEX audit_events_connection ON audit_events (connection_id, at DESC, id DESC);

-- Down Migration
DROP TABLE audit_events;
