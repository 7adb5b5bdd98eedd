// `crm-sync schedules` (what a cluster's setup job runs after `migrate`): every stored connection's
// schedules and the heartbeat schedule, created where missing and updated where present, then exit.
// A process against a real PostgreSQL and a real Temporal server.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HEARTBEAT_SCHEDULE_ID } from '../../temporal/schedules.ts';
import { cosellScheduleId, realtimeScheduleId, syncScheduleId } from '../../temporal/sync-schedules.ts';
import { cliEnv, cliOutcome } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startSandboxes } from '../support/sync-harness.ts';
import { waitFor } from '../support/start-process.ts';

describe('crm-sync schedules (real PostgreSQL, real Temporal)', () => {
  const taskQueue = `schedules-${Date.now()}`;
  const namespace = `schedules-test-${Date.now()}`;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 5, seed: 29 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    // A namespace of its own: the heartbeat schedule's id is one per namespace, and the heartbeat test
    // expects to create it in the shared one.
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    await waitFor(`namespace ${namespace} to serve`, () => new Client({ connection, namespace }).schedule.list()[Symbol.asyncIterator]().next().then(() => true, () => undefined), 60_000, 500);
    env = { ...cliEnv({ databaseUrl: database.url, secretKey: randomBytes(32).toString('base64'), taskQueue, commerceClientSecret: sandboxes.commerce.clientSecret, salesforceClientSecret: sandboxes.salesforce.clientSecret }), TEMPORAL_NAMESPACE: namespace };
  });
  afterAll(async () => {
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('puts back a lost schedule of every connection, keeps the others as they are, and exits', async () => {
    const connect = await cliOutcome(env, [
      'connect', '--name', 'acme-schedules',
      '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
      '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
      '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
      '--paused',
    ]);
    expect(connect.code, connect.stderr).toBe(0);
    const connectionId = JSON.parse(connect.stdout).connection as string;
    const client = new Client({ connection, namespace });
    // A namespace restored without one schedule: the realtime schedule is gone.
    await client.schedule.getHandle(realtimeScheduleId(connectionId)).delete();
    await expect(client.schedule.getHandle(realtimeScheduleId(connectionId)).describe()).rejects.toThrow();

    const outcome = await cliOutcome(env, ['schedules']);
    expect(outcome.code, outcome.stderr).toBe(0);
    const result = JSON.parse(outcome.stdout);
    expect(result.connections).toEqual(['acme-schedules']);
    expect(['created', 'updated']).toContain(result.heartbeat);

    const restored = await client.schedule.getHandle(realtimeScheduleId(connectionId)).describe();
    expect(restored.action.type).toBe('startWorkflow');
    expect(restored.action.type === 'startWorkflow' && restored.action.taskQueue).toBe(taskQueue);
    expect(restored.action.type === 'startWorkflow' && restored.action.workflowType).toBe('realtimeSyncWorkflow');
    // The ones that were there keep their state, and the one put back joins them: still paused, as
    // `connect --paused` left them (a lost schedule must not start syncing a paused connection).
    for (const id of [syncScheduleId(connectionId), cosellScheduleId(connectionId), realtimeScheduleId(connectionId)]) {
      expect((await client.schedule.getHandle(id).describe()).state.paused).toBe(true);
    }
    await client.schedule.getHandle(HEARTBEAT_SCHEDULE_ID).describe();
  });

  it('says plainly when Temporal cannot be reached', async () => {
    const outcome = await cliOutcome(env, ['schedules'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr + outcome.stdout).toContain('Temporal is not reachable at 127.0.0.1:1');
  });
});
