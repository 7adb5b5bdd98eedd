// Versioned migrations (SQL files in store/migrations), applied at start-up by node-pg-migrate.
// Its advisory lock, in 'wait' mode, lets several workers start at once: one migrates, the rest wait.
import path from 'node:path';
import type pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../config/logger.ts';

export const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
export const MIGRATIONS_TABLE = 'schema_migrations';

export async function migrate(pool: pg.Pool, logger: Logger): Promise<string[]> {
  const client = await pool.connect();
  try {
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      count: Infinity,
      checkOrder: true,
      singleTransaction: true,
      advisoryLockMode: 'wait',
      logger: {
        debug: () => {},
        info: (message: string) => logger.debug({ component: 'migrate' }, message),
        warn: (message: string) => logger.warn({ component: 'migrate' }, message),
        error: (message: string) => logger.error({ component: 'migrate' }, message),
      },
    });
    const names = applied.map((migration) => migration.name);
    if (names.length > 0) logger.info({ migrations: names }, 'Applied database migrations');
    return names;
  } finally {
    client.release();
  }
}
