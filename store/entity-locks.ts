// One writer at a time per connection and entity: the incremental pass, the notification path, a
// backfill and dead-letter retries of one connection take this lock around "compare with the links,
// write to the CRM, record the links", so no writer puts an older snapshot over a newer one between
// the comparison and the write. A PostgreSQL session lock: a worker that dies releases it with its
// connection. Work runs on the lock's own client, so a writer never needs a second pool connection.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

export type LockWaitOptions = {
  /** Called while waiting (the activity heartbeats). */
  onWait?: (waitedMs: number) => void;
  signal?: AbortSignal;
  pollMs?: number;
};

export async function withEntityLock<T>(pool: pg.Pool, connectionId: string, entity: string, options: LockWaitOptions, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let locked = false;
  let broken = false;
  try {
    const started = Date.now();
    for (;;) {
      const { rows } = await client.query(`SELECT pg_try_advisory_lock(hashtext('crm-sync-entity'), hashtext($1)) AS locked`, [`${connectionId}:${entity}`]);
      locked = rows[0].locked;
      if (locked) break;
      options.signal?.throwIfAborted();
      options.onWait?.(Date.now() - started);
      await sleep(options.pollMs ?? 250, undefined, { signal: options.signal });
    }
    return await work(client);
  } catch (error) {
    broken = !locked || isConnectionError(error);
    throw error;
  } finally {
    if (locked) {
      await client.query(`SELECT pg_advisory_unlock(hashtext('crm-sync-entity'), hashtext($1))`, [`${connectionId}:${entity}`]).catch(() => {
        broken = true;
      });
    }
    // A client whose state is unknown is closed rather than returned: closing releases any lock it holds.
    client.release(broken ? true : undefined);
  }
}

function isConnectionError(error: unknown): boolean {
  return /Connection terminated|ECONNRESET|Client has encountered a connection error/i.test(String((error as Error)?.message));
}
