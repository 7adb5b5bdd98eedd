// Each test file gets its own freshly created and migrated database on the shared server.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { createPool } from '../../store/database.ts';
import { migrate } from '../../store/migrate.ts';

export const quietLogger = createLogger({ level: 'warn', format: 'json' });

export type TestDatabase = { url: string; pool: pg.Pool; drop(): Promise<void> };

export async function createTestDatabase(options: { migrate?: boolean } = { migrate: true }): Promise<TestDatabase> {
  const serverUrl = inject('postgresServerUrl');
  const name = `crm_sync_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString());
  if (options.migrate !== false) await migrate(pool, quietLogger);
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
