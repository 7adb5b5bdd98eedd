-- Up Migration

-- A connection whose credentials a side refused (revoked secret, expired refresh token) is marked for
-- re-authorisation: its syncs stop at once with the reason instead of retrying, until new secrets are
-- saved (crm-sync edit), which clears the mark.
ALTER TABLE connections
  ADD COLUMN reauthorisation_reason text,
  ADD COLUMN reauthorisation_since  timestamptz;

-- Down Migration
ALTER TABLE connections
  DROP COLUMN reauthorisation_reason,
  DROP COLUMN reauthorisation_since;
