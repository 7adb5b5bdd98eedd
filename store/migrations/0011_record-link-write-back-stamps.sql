-- Up Migration

-- The commerce record as the CRM is known to be in step with it (issue #29: a no-op must cost nothing):
-- its lastUpdateTime and a hash of the rest, kept with the link when the sync wrote the record or found
-- it unchanged, and replaced by what our write-back's answer showed when the CRM ids were written back
-- onto it (that write moves lastUpdateTime, so the next incremental run finds the record in its window).
-- A record read later with that very stamp and hash was changed by nobody since: its terms are not read
-- again and nothing is written. An answer counts only when it shows our write alone on top of what was
-- synced (sync/write-back-stamps.ts).
ALTER TABLE record_links ADD COLUMN known_version timestamptz;
ALTER TABLE record_links ADD COLUMN known_hash text;

-- Down Migration
ALTER TABLE record_links DROP COLUMN known_hash;
ALTER TABLE record_links DROP COLUMN known_version;
