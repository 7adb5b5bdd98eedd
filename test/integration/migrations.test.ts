import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../store/database.ts';
import { migrate } from '../../store/migrate.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';

describe('migrations (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  it('apply once under the advisory lock when several processes start together', async () => {
    const pools = [createPool(database.url), createPool(database.url), createPool(database.url)];
    const results = await Promise.all(pools.map((pool) => migrate(pool, quietLogger)));
    await Promise.all(pools.map((pool) => pool.end()));
    // Exactly one runner applied the migrations; the others waited on the lock and found nothing to do.
    expect(results.flat()).toEqual(['0001_initial-schema', '0002_connection-reauthorisation', '0003_sync-coordination', '0004_outbound-intents', '0005_stage-sync', '0006_outbound-intent-claims', '0007_dead-letter-pages', '0008_audit-events', '0009_mapping-versions', '0010_alert-routes', '0011_record-link-write-back-stamps', '0012_console-sessions']);
    const tables = await database.pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual([
      'alert_deliveries',
      'alert_routes',
      'audit_events',
      'connections',
      'console_sessions',
      'dead_letters',
      'entity_leases',
      'heartbeats',
      'mapping_versions',
      'oidc_pending_sign_ins',
      'outbound_intents',
      'record_links',
      'schema_migrations',
      'stage_sync',
      'sync_cursors',
      'sync_runs',
    ]);
  });

  it('are a no-op when the schema is current', async () => {
    expect(await migrate(database.pool, quietLogger)).toEqual([]);
  });

  it('keep one open dead letter per record', async () => {
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'c1', 'hubspot', '\\x00', 'k')`);
    const insert = `INSERT INTO dead_letters (connection_id, entity, source_id, reason) VALUES ('c1', 'offer', 'o-1', 'too long')`;
    await database.pool.query(insert);
    await expect(database.pool.query(insert)).rejects.toThrow(/dead_letters_one_open_per_record/);
    await database.pool.query(`UPDATE dead_letters SET resolved_at = now()`);
    await database.pool.query(insert);
  });
});
