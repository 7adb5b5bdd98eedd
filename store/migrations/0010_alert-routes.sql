-- Up Migration

-- Alert routes (issue #27 section 2): which notification events of a connection go where (a Slack or
-- Teams webhook, email through SMTP, or the CRM record owner's email through SMTP). The destination's
-- secret parts (a webhook URL carries its secret; an SMTP password) are sealed with the SecretBox, the
-- route's id bound in as additional data, as connection secrets are; `hint` is what a person may see.
CREATE TABLE alert_routes (
  id text PRIMARY KEY,
  connection_id text NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  event_types text[] NOT NULL,
  marketplaces text[] NOT NULL DEFAULT '{}',
  destination_kind text NOT NULL CHECK (destination_kind IN ('slack', 'teams', 'email', 'owner-email')),
  hint text NOT NULL,
  secret_ciphertext bytea NOT NULL,
  secret_key_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_routes_connection ON alert_routes (connection_id);

-- One row per route and event: inserted 'pending' when the event is read (in the same transaction as
-- the alerts' own feed position moves), claimed ('sending') by one delivery before it sends, 'sent'
-- after. A second read of the same event finds its row and sends nothing. `digest`: the digest message
-- that carried the event when a storm was sent as one message.
CREATE TABLE alert_deliveries (
  route_id text NOT NULL REFERENCES alert_routes(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  connection_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  event jsonb NOT NULL,
  claim text,
  digest text,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  PRIMARY KEY (route_id, event_id)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (route_id, created_at) WHERE status = 'pending';

-- Down Migration
DROP TABLE alert_deliveries;
DROP TABLE alert_routes;
