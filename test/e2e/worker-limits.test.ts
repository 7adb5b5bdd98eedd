// The worker runs at most its configured number of activities at once (real Temporal): a workflow
// starts more activities than the limit, and the activities themselves count how many run together.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SecretBox } from '../../store/secret-box.ts';
import { createSyncWorker, type WorkerLimits } from '../../worker.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const WORKFLOWS = path.join(import.meta.dirname, 'fixtures', 'worker-limits-workflows.ts');

describe('worker concurrency limits (real Temporal)', () => {
  let database: TestDatabase;
  let connection: NativeConnection;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection?.close();
    await database?.drop();
  });

  /** Runs `count` activities from one workflow on a worker with `limits`; the most that ran at once. */
  async function peakConcurrency(limits: Partial<WorkerLimits> | undefined, count: number): Promise<number> {
    let running = 0;
    let peak = 0;
    const taskQueue = `worker-limits-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const worker = await createSyncWorker({
      connection,
      namespace: 'default',
      taskQueue,
      pool: database.pool,
      secretBox: new SecretBox(Buffer.alloc(32, 5)),
      workflowsPath: WORKFLOWS,
      limits,
      extraActivities: {
        async occupySlot(holdMs: number) {
          running += 1;
          peak = Math.max(peak, running);
          await sleep(holdMs);
          running -= 1;
        },
      },
    });
    await worker.runUntil(
      new Client({ connection }).workflow.execute('parallelActivitiesWorkflow', { taskQueue, workflowId: taskQueue, args: [{ count, holdMs: 400 }] }),
    );
    return peak;
  }

  it('runs no more activities at once than CRM_SYNC_MAX_CONCURRENT_ACTIVITIES allows (2 of 8 here)', async () => {
    expect(await peakConcurrency({ maxConcurrentActivities: 2 }, 8)).toBe(2);
  });

  it('runs at most 8 at once by default (12 started together)', async () => {
    expect(await peakConcurrency(undefined, 12)).toBe(8);
  });
});
