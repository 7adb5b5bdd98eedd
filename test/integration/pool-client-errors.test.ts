// A checked-out PostgreSQL client whose server connection ends (a restart, a failover, an
// administrator) must fail its query, not crash the process: pg emits the error on the client itself,
// where a missing listener is an uncaught exception (seen when PostgreSQL restarted under a worker).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it('a checked-out client whose connection is terminated fails its next query; the pool goes on with a new one', async () => {
  const client = await database.pool.connect();
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
  // Another session ends it, as a restart would.
  await database.pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await expect(client.query('SELECT 1')).rejects.toThrow(/terminat|Connection|closed/i);
  client.release(true);
  const after = await database.pool.query('SELECT 1 AS ok');
  expect(after.rows[0].ok).toBe(1);
});
