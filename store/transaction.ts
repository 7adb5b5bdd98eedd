// PostgreSQL transactions: committed when `work` resolves, rolled back when it throws.
import type pg from 'pg';

/** One transaction on a client the caller holds (and keeps). */
export async function inTransaction<T>(client: pg.PoolClient, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** One transaction on a client of its own from the pool. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await inTransaction(client, work);
  } finally {
    client.release();
  }
}
