-- Up Migration

-- The console's dead-letter section and `crm-sync errors` show one page of a connection's open letters,
-- newest first or soonest retry first (issue #26 defect 3). With these a page reads its rows only,
-- instead of every open letter of the connection (a mapped payload of ~2 kB is stored inline, so a scan
-- of 100,000 letters read ~225 MB); the counts per entity come from dead_letters_one_open_per_record.
CREATE INDEX dead_letters_open_newest ON dead_letters (connection_id, last_failed_at DESC, id DESC) WHERE resolved_at IS NULL;
CREATE INDEX dead_letters_open_next_retry ON dead_letters (connection_id, next_retry_at, id) WHERE resolved_at IS NULL;

-- Down Migration
DROP INDEX dead_letters_open_newest;
DROP INDEX dead_letters_open_next_retry;
