-- Up Migration

-- The console's sessions, shared by every replica's admin server (store/console-sessions.ts), so a person
-- signed in on one is known on the next and a restart signs nobody out. The cookie's id is a bearer
-- credential: only its SHA-256 is kept, and a reader of this table cannot sign in with it. The CSRF token is
-- derived from the id (admin/console/sessions.ts) and not kept. `identity`: the person and their role (or
-- the admin token's admin rights), nothing secret. Rows past expires_at are never read as valid and are
-- swept a hundred at a time whenever a session is made.
CREATE TABLE console_sessions (
  id_hash bytea PRIMARY KEY CHECK (octet_length(id_hash) = 32),
  identity jsonb NOT NULL,
  flash text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);

-- OpenID Connect sign-ins between leaving for the identity provider and its callback, which may land on
-- another replica (store/oidc-pending-sign-ins.ts). Found by the SHA-256 of the sign-in cookie's id. The
-- PKCE verifier is not kept: it is an HMAC of that id (admin/oidc.ts), so it exists only where the
-- browser's cookie is. state and nonce travel through the browser and the ID token anyway and are no
-- secret; `next` is the console path to go to afterwards. Taken (deleted) by the callback, so one is
-- used once; swept like the sessions when a sign-in starts.
CREATE TABLE oidc_pending_sign_ins (
  id_hash bytea PRIMARY KEY CHECK (octet_length(id_hash) = 32),
  state text NOT NULL,
  nonce text NOT NULL,
  next_path text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oidc_pending_sign_ins_expires_at ON oidc_pending_sign_ins (expires_at);

-- Down Migration
DROP TABLE oidc_pending_sign_ins;
DROP TABLE console_sessions;
