// Chaos on both sides, for each CRM: the production worker syncs the commerce sandbox into the CRM's
// sandbox while both answer 10% 500s and 5% 429s, 1% of answers come 1.5 s late and 1% are lost on the
// way (the call was carried out, its answer cut off), and every token (session) is revoked each second. The
// sync must still converge to exactly the expected CRM, with no duplicate, and write the ids back.
// Production look-back (600 s).
//
// The three CRMs run at the same time, through one worker (one task queue) and one database, as one
// production worker serves several connections: each has its own sandboxes, connection and run. Their
// time is honest waiting (every 429 waits the second it asks for, retries back off), so it overlaps.
// `npm run chaos` (CRM_SYNC_CHAOS=full) runs it as it is: 120 entitlements are already small, and each
// CRM is there for its own clients' faults (see docs/testing.md).
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

const taskQueue = `chaos-both-${Date.now()}`;
let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startProductionWorker(database, { taskQueue });
});
afterAll(async () => {
  await worker?.stop();
  await database?.drop();
});

it.concurrent.for(CRMS_UNDER_TEST)('converges to exactly the expected %s records with 500s, 429s and expiring tokens injected in both sandboxes', { timeout: 240_000 }, async (kind, { expect }) => {
  // The time allowed: every 429 waits the second it asks for, and retries back off (honest waiting).
  // HubSpot signs in with OAuth here: its access tokens expire with the others.
  const sandboxes = await startSandboxesFor(kind, { entitlements: 120, seed: 17 }, { auth: 'oauth' });
  const { commerce, crm } = sandboxes;
  // A lost Dataverse answer waits for the call's deadline before it is tried again: 5 s here, not 120.
  const { id: connectionId } = await createCrmConnection(database, commerce, crm, { pageSize: 40, ...(kind === 'dynamics' && { crmSettings: { requestTimeoutMs: 5000 } }) });
  // Tokens and sessions live an hour or two in production; here every one of them dies each second.
  const expire = setInterval(() => {
    void post(`${commerce.apiUrl}/_sandbox/tokens/expire`).catch(() => {});
    void crm.expireCredentials().catch(() => {});
  }, 1000);
  try {
    await post(`${commerce.apiUrl}/_sandbox/faults`, { operation: '*', rate500: 0.1, rate429: 0.05, retryAfterSeconds: 1, truncatedRate: 0.01, slowRate: 0.01, slowMs: 1500 });
    // Seeded: with seed 13 the sequence already holds a 429 and a 500 among its first six answers (in
    // every CRM sandbox), so both are always met even where a CRM takes few calls (Bulk jobs, batches of 100).
    await crm.faults({ rate500: 0.1, rate429: 0.05, truncatedRate: 0.01, slowRate: 0.01, slowMs: 1500, seed: 13 });
    const result: SyncProgress = await new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, {
      taskQueue,
      workflowId: `chaos-both-${kind}-${Date.now()}`,
      args: [{ connectionId }],
    });
    clearInterval(expire);
    expect(result.finished).toBe(true);
    // The faults were really met on the CRM side (the sandbox counts the answers it replaced).
    const injected = await crm.injected();
    expect(injected['500']).toBeGreaterThan(0);
    expect(injected['429']).toBeGreaterThan(0);

    await fetch(`${commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    await crm.clearFaults();
    const rejected = await crm.expectMatchesCommerce(commerce);
    await crm.expectWriteBack(commerce);
    // The records left out are exactly those the witness expects the CRM to refuse (see sync.test.ts).
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort()).toEqual(rejected);
  } finally {
    clearInterval(expire);
    await sandboxes.stop();
  }
});
