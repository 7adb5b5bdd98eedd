// The scheduled loop of `npm start`, in process: Schedule -> heartbeat workflow -> activity -> PostgreSQL.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findTemporalCli } from '../../infra/temporal-cli.ts';
import { createHeartbeatStore } from '../../store/heartbeats.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { ensureHeartbeatSchedule, HEARTBEAT_SCHEDULE_ID } from '../../temporal/schedules.ts';
import { createSyncWorker, WORKFLOWS_PATH } from '../../worker.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';

describe('heartbeat schedule (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `heartbeat-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    worker = await createSyncWorker({ connection, namespace: 'default', taskQueue, pool: database.pool, secretBox: new SecretBox(Buffer.alloc(32, 3)), identity: 'heartbeat-test' });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await new Client({ connection }).schedule.getHandle(HEARTBEAT_SCHEDULE_ID).delete().catch(() => {});
    await connection?.close();
    await database?.drop();
  });

  it('is created once, with overlap SKIP, and each triggered tick writes exactly one heartbeat row', async () => {
    const client = new Client({ connection });
    expect(await ensureHeartbeatSchedule(client, { taskQueue, every: '1h' })).toBe('created');
    expect(await ensureHeartbeatSchedule(client, { taskQueue, every: '1m' })).toBe('updated');

    const handle = client.schedule.getHandle(HEARTBEAT_SCHEDULE_ID);
    const description = await handle.describe();
    expect(description.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(description.spec.intervals?.[0]?.every).toBe(60_000);

    const heartbeats = createHeartbeatStore(database.pool);
    await handle.trigger(ScheduleOverlapPolicy.SKIP);
    const deadline = Date.now() + 30_000;
    while ((await heartbeats.count()) < 1) {
      if (Date.now() > deadline) throw new Error('no heartbeat row was written');
      await sleep(200);
    }
    const [beat] = await heartbeats.latest(1);
    expect(beat!.beatId).toMatch(/^crm-sync-heartbeat-/);
    expect(beat!.workerIdentity).toBe('heartbeat-test');

    // The workflow's own history replays cleanly against today's code.
    const workflow = client.workflow.getHandle(beat!.beatId);
    await workflow.result();
    const history = await workflow.fetchHistory();
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history, beat!.beatId);
    if (process.env.RECORD_HISTORIES === '1') {
      // The Temporal CLI's JSON is the canonical history format (as `temporal workflow show -o json` prints it).
      const cli = await findTemporalCli({ allowBuild: false });
      const json = execFileSync(cli!.path, ['workflow', 'show', '--workflow-id', beat!.beatId, '--address', inject('temporalAddress'), '--output', 'json']);
      writeFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'histories', 'heartbeat.json'), json);
    }
  });
});
