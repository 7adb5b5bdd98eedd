// The PostgreSQL pool is bounded: when every connection is held, a caller waits a bounded time and then
// gets an error that says what happened and what to change; it never waits forever (real PostgreSQL).
// The default 30 s wait is run on a fake clock (vitest's fake timers: not a millisecond early, refused at
// 30 s); the 1 s waits run on the real one.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool } from '../../store/database.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('the PostgreSQL pool', () => {
  let database: TestDatabase;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    for (const pool of pools) await pool.end().catch(() => {});
    await database?.drop();
  });

  it('by default: at most 10 connections, a 30 s wait for one, idle ones closed after 30 s', () => {
    const pool = createPool(database.url);
    pools.push(pool);
    expect(pool.options).toMatchObject({ max: 10, connectionTimeoutMillis: 30_000, idleTimeoutMillis: 30_000 });
  });

  it('with its one connection held, connect() fails after the default 30 s with a clear error, and works again once it is released', async () => {
    const pool = createPool(database.url, { max: 1 });
    pools.push(pool);
    const held = await pool.connect();
    // The 30 s pass on a fake clock (the pool's wait is a setTimeout): still waiting a millisecond before
    // 30 s, refused at 30 s. The connection held and the pool's queue are real; only the clock is not.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let outcome: Error | 'connected' | 'waiting' = 'waiting';
    try {
      const waiting = pool.connect().then(
        (client) => {
          client.release();
          return 'connected' as const;
        },
        (failure: Error) => failure,
      );
      void waiting.then((settled) => (outcome = settled));
      await vi.advanceTimersByTimeAsync(29_999);
      expect(outcome).toBe('waiting');
      // Settled by the time the clock reaches 30 s (a pool that waited longer, or for ever, stays 'waiting').
      await vi.advanceTimersByTimeAsync(1);
    } finally {
      vi.useRealTimers();
    }
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as unknown as Error).message).toMatch(/^PostgreSQL: no connection free within 30 s \(pool of 1, all in use\)\. .*CRM_SYNC_DB_POOL_MAX/);
    held.release();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('pool.query() waiting for a held connection fails the same way within its timeout', async () => {
    const pool = createPool(database.url, { max: 2, connectionTimeoutMs: 1_000 });
    pools.push(pool);
    const held = [await pool.connect(), await pool.connect()];
    const startedAt = Date.now();
    await expect(pool.query('SELECT 1')).rejects.toThrow(/^PostgreSQL: no connection free within 1 s \(pool of 2, all in use\)/);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    for (const client of held) client.release();
    expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  it('a server that never answers fails a new connection within the timeout, naming PostgreSQL', async () => {
    // A listening socket that accepts and stays silent: the connection never completes its start-up.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const pool = createPool(`postgres://nobody:x@127.0.0.1:${port}/none`, { connectionTimeoutMs: 1_000 });
    pools.push(pool);
    try {
      await expect(pool.query('SELECT 1')).rejects.toThrow(/^PostgreSQL did not accept a new connection within 1 s/);
    } finally {
      silent.close();
    }
  });
});
