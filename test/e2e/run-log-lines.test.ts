// The log lines of a run, as `crm-sync worker` writes them (JSON on stderr): every line about a workflow
// or an activity carries the connection id beside the workflow and run ids, so an engineer can follow one
// connection's run through the logs of many workers.
import type { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConnectionStore } from '../../store/connections.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/start-process.ts';
import { createSandboxConnection, startSandboxes, TEST_SECRET_BOX } from '../support/sync-harness.ts';
import { startCliWorker } from '../support/worker-process.ts';

describe('log lines of a run (crm-sync worker, real PostgreSQL and Temporal)', () => {
  const taskQueue = `log-lines-${Date.now()}`;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let worker: ChildProcess;
  let client: Connection;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 10, seed: 3 });
    worker = await startCliWorker({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      taskQueue,
      freePort,
      onLine: (line) => {
        try {
          logs.push(JSON.parse(line));
        } catch {
          logs.push({ msg: line });
        }
      },
    });
    client = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    worker?.kill('SIGTERM');
    await new Promise((resolve) => (worker?.exitCode !== null ? resolve(undefined) : worker.once('exit', resolve)));
    await client?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('a failing run: the SDK\'s activity and workflow lines carry the connection, workflow and run ids', async () => {
    const connection = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce);
    // The commerce side refuses the stored secret: the activity fails, then the workflow.
    await createConnectionStore(database.pool, TEST_SECRET_BOX).update(connection.id, { secrets: { commerceClientSecret: 'rotated-away-0000', crmClientSecret: sandboxes.salesforce.clientSecret } });
    const workflowId = `log-lines-${connection.id}`;
    const handle = await new Client({ connection: client }).workflow.start(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId, args: [{ connectionId: connection.id }] });
    await handle.result().catch(() => undefined);
    const ofRun = await waitFor('the run\'s activity and workflow failure lines', () => {
      const lines = logs.filter((line) => line.workflowId === workflowId);
      return lines.some((line) => line.msg === 'Activity failed') && lines.some((line) => line.msg === 'Workflow failed') ? lines : undefined;
    }, 30_000);
    for (const line of ofRun) {
      expect(line, JSON.stringify(line)).toMatchObject({ connectionId: connection.id, workflowId });
      expect(line.runId ?? line.workflowRunId, JSON.stringify(line)).toBe(handle.firstExecutionRunId);
    }
    // The secret the commerce side refused never reaches a log line.
    expect(JSON.stringify(logs)).not.toContain('rotated-away-0000');
  });
});
