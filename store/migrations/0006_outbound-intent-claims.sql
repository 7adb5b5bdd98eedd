-- Up Migration

-- Which activity attempt holds a pending create, and from when a commerce record it may have made is
-- surely visible (issue #24 item 6). A create whose answer was lost may still be committed by the
-- service later (up to the client's request timeout after it was sent), so the next attempt looks for
-- it only once adopt_after has passed, and looks again whenever another attempt claimed the row since
-- its own look. The claim also fences an attempt that outlived its heartbeat: a row its retry (a later
-- attempt of the same activity) has claimed is never created by it again.
ALTER TABLE outbound_intents
  ADD COLUMN claim_activity text,
  ADD COLUMN claim_attempt  integer,
  ADD COLUMN adopt_after    timestamptz;

-- Creates pending from before this migration were tried by an unknown attempt: looked for before any new create.
UPDATE outbound_intents SET claim_activity = 'before-claims', claim_attempt = 0, adopt_after = now() WHERE state = 'pending';

-- Down Migration
ALTER TABLE outbound_intents DROP COLUMN claim_activity, DROP COLUMN claim_attempt, DROP COLUMN adopt_after;
