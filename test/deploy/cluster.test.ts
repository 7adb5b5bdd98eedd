// Three worker containers on a real Temporal server with PostgreSQL persistence (not the dev server): a
// backfill of 20,000 entitlements, one container killed with `podman kill` while an activity runs on it.
// The run finishes on the other two, and the Salesforce sandbox holds exactly the expected records (none
// missing, none twice). The containers run the image built from the Dockerfile (on the Debian-built base)
// with host networking, against the test's PostgreSQL, the Temporal server and the sandboxes on loopback.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTemporalServer, type RunningTemporalServer } from '../../infra/temporal-server.ts';
import { startBackfill } from '../../temporal/sync-schedules.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/start-process.ts';
import { createSandboxConnection, expectedCrmState, salesforceDump, startSandboxes } from '../support/sync-harness.ts';
import { containerState, ensureBaseImage, ensureCrmSyncImage, killContainer, podmanMissing, removeContainer, runContainer } from './support/podman.ts';
import { dropTemporalDatabases } from './support/temporal-databases.ts';

const missing = await podmanMissing();
if (missing) console.warn(`Skipping the cluster test: ${missing}`);

const ENTITLEMENTS = 20_000;
const WORKERS = ['crm-sync-cluster-1', 'crm-sync-cluster-2', 'crm-sync-cluster-3'];
const VICTIM = WORKERS[1]!;
/** A pending activity's state in DescribeWorkflowExecution: 2 = STARTED (a worker is running it). */
const STARTED = 2;
/** An activity's worker identity as the TypeScript SDK makes it: pid@hostname; pid 1 in a container. */
const identityOf = (hostname: string) => `1@${hostname}`;

describe.skipIf(Boolean(missing))('three worker containers on a Temporal server with PostgreSQL persistence', () => {
  const suffix = randomBytes(4).toString('hex');
  const databases = { database: `temporal_cluster_${suffix}`, visibilityDatabase: `temporal_cluster_visibility_${suffix}` };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-cluster-'));
  const taskQueue = `cluster-${suffix}`;
  const names = WORKERS.map((hostname) => `${hostname}-${suffix}`);
  let server: RunningTemporalServer;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;

  beforeAll(async () => {
    const image = await ensureCrmSyncImage(await ensureBaseImage());
    server = await startTemporalServer({ databaseUrl: inject('postgresServerUrl'), dataDir, logger: quietLogger, databases });
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: ENTITLEMENTS, seed: 41 });
    connection = await Connection.connect({ address: server.address });
    for (const [index, hostname] of WORKERS.entries()) {
      const adminPort = await freePort();
      await runContainer({
        image,
        name: names[index]!,
        network: 'host',
        hostname,
        env: {
          TEMPORAL_ADDRESS: server.address,
          DATABASE_URL: database.url,
          CRM_SYNC_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'), // the key of the harness's TEST_SECRET_BOX
          CRM_SYNC_TASK_QUEUE: taskQueue,
          CRM_SYNC_ADMIN_PORT: String(adminPort),
          CRM_SYNC_ADMIN_TOKEN: `cluster-test-admin-token-${suffix}-0123456789`,
          CRM_SYNC_SHUTDOWN_GRACE: '5s',
        },
      });
      await waitFor(`${hostname}'s /readyz to answer 200`, async () => (await fetch(`http://127.0.0.1:${adminPort}/readyz`).catch(() => undefined))?.status === 200, 300_000, 500);
    }
  });

  afterAll(async () => {
    if (missing) return;
    for (const name of names) await removeContainer(name);
    await connection?.close();
    await server?.stop();
    await sandboxes?.stop();
    await database?.drop();
    await dropTemporalDatabases(inject('postgresServerUrl'), Object.values(databases));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sandboxControl = async (method: 'POST' | 'DELETE', body?: unknown) => {
    const answer = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(answer.status).toBe(200);
  };

  it(`finishes a ${ENTITLEMENTS.toLocaleString('en')}-entitlement backfill on the two left after one is killed, exactly`, async () => {
    const { id: connectionId } = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 200 });
    const handle = await startBackfill(new Client({ connection }), taskQueue, { connectionId, entities: ['buyer', 'offer', 'entitlement'] });

    // Kill the victim while Temporal shows an activity running on it: a kill between two activities
    // would leave nothing to take over. Each commerce call answers 3 s late meanwhile, so the activity is
    // still running when the kill lands (podman kill takes a moment on a loaded machine; a page of an
    // unhurried run can finish in it).
    await sandboxControl('POST', { operation: '*', latencyMs: 3_000 });
    await waitFor(`an activity running on ${VICTIM}`, async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      // A page of records (it reads the commerce side, so the latency holds it), not a run's bookkeeping
      // activity, which touches only PostgreSQL and can end before the kill lands.
      return pending.some((activity) => Number(activity.state) === STARTED && activity.lastWorkerIdentity === identityOf(VICTIM) && activity.activityType?.name === 'syncEntityPage');
    }, 600_000, 50);
    await killContainer(names[1]!);
    expect(await waitFor('the killed container to stop', async () => { const state = await containerState(names[1]!); return state.running ? undefined : state; }, 60_000, 200)).toEqual({ running: false, exitCode: 137 });
    // From here on the victim surely runs nothing (podman kill can take a while on a loaded machine, and
    // the victim may start more work until it dies).
    const deadAt = Date.now();
    await sandboxControl('DELETE');
    // The kill interrupted work: Temporal still holds an activity last started on the victim.
    const interrupted = (await handle.describe()).raw.pendingActivities ?? [];
    expect(interrupted.some((activity) => activity.lastWorkerIdentity === identityOf(VICTIM)), 'an activity of the killed container pending').toBe(true);

    const result = await handle.result();
    expect(result.totals.failed).toBe(0);

    // Exactly the expected records: every key once (a sorted list equal to the expected keys has no
    // duplicate and nothing missing).
    for (const [entity, object, field] of [['buyer', 'Account', 'Commerce_Buyer_Id__c'], ['offer', 'Opportunity', 'Commerce_Offer_Id__c'], ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c']] as const) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      const stored = await salesforceDump(sandboxes.salesforce, object);
      expect(stored.map((record) => record[field]).sort(), `${object} records`).toEqual([...expected.keys()].sort());
    }
    const entitlements = await expectedCrmState(sandboxes.commerce, 'entitlement');
    expect(entitlements.size).toBe(ENTITLEMENTS);

    // Only the other two ran activities after the kill. (History keeps the last attempt of each activity
    // only, so the victim shows in it only for activities it finished before the kill, if any.)
    const { events } = await handle.fetchHistory();
    const started = events!.flatMap((event) => (event.activityTaskStartedEventAttributes ? [{ identity: event.activityTaskStartedEventAttributes.identity!, at: Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6), attempt: event.activityTaskStartedEventAttributes.attempt ?? 1 }] : []));
    for (const event of started) expect(WORKERS.map(identityOf)).toContain(event.identity);
    const afterKill = started.filter((event) => event.at > deadAt);
    expect(afterKill.length).toBeGreaterThan(0);
    for (const event of afterKill) expect([identityOf(WORKERS[0]!), identityOf(WORKERS[2]!)]).toContain(event.identity);
    // The activity the kill interrupted timed out on its heartbeat and ran again on another container.
    expect(started.filter((event) => Number(event.attempt) > 1).length, 'activities retried after the kill').toBeGreaterThan(0);
  });
});
