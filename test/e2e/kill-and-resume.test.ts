// The worker process is SIGKILLed while its activity runs; a new worker process finishes the workflow,
// and the idempotent activity leaves exactly one row although it ran twice.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { E2E_TABLE } from './fixtures/activities.ts';




describe('a worker killed during an activity (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let connection: Connection;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(E2E_TABLE);
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await connection?.close();
    await database?.drop();
  });

  it('is replaced by a new worker, and the workflow completes with exactly one row', async () => {
    const client = new Client({ connection });
    const taskQueue = `kill-and-resume-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue };

    const first = await startWorkerProcess('first', env);
    children.push(first);
    const handle = await client.workflow.start('writeOneRowWorkflow', {
      taskQueue,
      workflowId: `write-one-row-${Date.now()}`,
      args: [{ lingerMs: 60_000 }],
    });

    // Wait until the first attempt has written its row and is lingering, then kill its process outright.
    const deadline = Date.now() + 30_000;
    while ((await database.pool.query('SELECT 1 FROM e2e_rows WHERE key = $1', [handle.workflowId])).rowCount === 0) {
      if (Date.now() > deadline) throw new Error('the first attempt never wrote its row');
      await sleep(100);
    }
    first.kill('SIGKILL');
    await waitForExit(first);

    const second = await startWorkerProcess('second', env);
    children.push(second);
    const result = await handle.result();

    const rows = await database.pool.query('SELECT key, executions, written_by FROM e2e_rows WHERE key = $1', [handle.workflowId]);
    expect(rows.rowCount).toBe(1);
    // The activity really ran twice, once on each process; idempotency kept the effect single.
    expect(rows.rows[0].executions).toBe(2);
    expect(rows.rows[0].written_by.map((who: string) => who.split('-')[0])).toEqual(['first', 'second']);
    expect(result).toEqual({ executions: 2 });

    const history = await handle.fetchHistory();
    const attempts = history.events!.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes!.attempt);
    expect(attempts).toEqual([2]); // the started event records the final attempt of the activity
    second.kill('SIGTERM');
    await waitForExit(second);
  });
});
