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
  const pool = createPool(config.database.url ?? embedded!.url, { max: config.database.poolMax });
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

export type PoolBounds = {
  /** Connections at most (default 10). */
  max?: number;
  /** Longest wait for a connection, free or new (default 30 s): never forever. */
  connectionTimeoutMs?: number;
  /** An idle connection is closed after this long (default 30 s). */
  idleTimeoutMs?: number;
};

export const DEFAULT_POOL_BOUNDS = { max: 10, connectionTimeoutMs: 30_000, idleTimeoutMs: 30_000 } as const;

export function createPool(connectionString: string, bounds: PoolBounds = {}): pg.Pool {
  const pool = new BoundedPool({
    connectionString,
    max: bounds.max ?? DEFAULT_POOL_BOUNDS.max,
    connectionTimeoutMillis: bounds.connectionTimeoutMs ?? DEFAULT_POOL_BOUNDS.connectionTimeoutMs,
    idleTimeoutMillis: bounds.idleTimeoutMs ?? DEFAULT_POOL_BOUNDS.idleTimeoutMs,
  });
  // An idle client losing its server (e.g. a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Nor may a client that is checked out when it happens (a lock held for a whole batch): pg emits the
  // error on the client itself, where no listener means an uncaught exception. The query in flight
  // fails with it instead, the activity is retried, and the pool drops the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/** pg's pool, whose connection timeouts say what happened and what to change (pool.query goes through connect too). */
class BoundedPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (callback) return super.connect((error, client, done) => callback(error ? this.#explain(error) : error, client, done));
    return super.connect().catch((error: Error) => {
      throw this.#explain(error);
    });
  }

  #explain(error: Error): Error {
    const seconds = `${(this.options.connectionTimeoutMillis ?? 0) / 1000} s`;
    if (error.message === 'timeout exceeded when trying to connect') {
      return new Error(
        `PostgreSQL: no connection free within ${seconds} (pool of ${this.options.max}, all in use). ` +
          'More work runs at once than the pool allows, or something holds its connection too long: ' +
          'lower CRM_SYNC_MAX_CONCURRENT_ACTIVITIES or raise CRM_SYNC_DB_POOL_MAX.',
        { cause: error },
      );
    }
    if (error.message === 'Connection terminated due to connection timeout') {
      return new Error(`PostgreSQL did not accept a new connection within ${seconds}: is the server up and reachable?`, { cause: error });
    }
    return error;
  }
}
