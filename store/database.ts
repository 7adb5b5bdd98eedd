// The database: DATABASE_URL when set, otherwise the embedded PostgreSQL under the data directory.
// Either way the schema is migrated before anything else touches it.
import pg from 'pg';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { startEmbeddedPostgres } from '../infra/embedded-postgres.ts';
import { migrate } from './migrate.ts';

export type Database = {
  pool: pg.Pool;
  /** Where it came from, for the start-up report (never the URL: it may hold a password). */
  origin: 'DATABASE_URL' | 'embedded';
  close(): Promise<void>;
};

export async function openDatabase(config: AppConfig, logger: Logger): Promise<Database> {
  const embedded = config.database.url
    ? undefined
    : await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.database.embeddedPort, logger });
  const pool = createPool(config.database.url ?? embedded!.url);
  try {
    await migrate(pool, logger);
  } catch (error) {
    await pool.end().catch(() => {});
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    origin: embedded ? 'embedded' : 'DATABASE_URL',
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

export function createPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client losing its server (e.g. a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}
