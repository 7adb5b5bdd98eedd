// Chaos on both sides: the production worker syncs the commerce sandbox into the Salesforce sandbox
// while both answer 10% 500s and 5% 429s (with Retry-After) and revoke every token each second. The
// sync must still converge to exactly the expected org, with no duplicate, and write the ids back.
// Production look-back (600 s).
import { Client } from '@temporalio/client';
import { expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase } from '../support/database.ts';
import { expectedRejections, expectOfferWriteBack, expectSalesforceMatchesCommerce } from '../support/salesforce-state.ts';
import { createSandboxConnection, startProductionWorker, startSandboxes } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

it('converges to exactly the expected Salesforce org with 500s, 429s and expiring tokens injected in both sandboxes', async () => {
  const database = await createTestDatabase();
  const sandboxes = await startSandboxes({ entitlements: 120, seed: 17 });
  const { commerce, salesforce } = sandboxes;
  const { id: connectionId } = await createSandboxConnection(database, commerce, salesforce, { pageSize: 40 });
  const taskQueue = `chaos-both-${Date.now()}`;
  const worker = await startProductionWorker(database, { taskQueue });
  const { connection } = worker;
  // Tokens and sessions live an hour or two in production; here every one of them dies each second.
  const expire = setInterval(() => {
    void post(`${commerce.apiUrl}/_sandbox/tokens/expire`).catch(() => {});
    void post(`${salesforce.instanceUrl}/_sandbox/sessions/expire`).catch(() => {});
  }, 1000);
  try {
    await post(`${commerce.apiUrl}/_sandbox/faults`, { operation: '*', rate500: 0.1, rate429: 0.05, retryAfterSeconds: 1 });
    // Seeded: Bulk jobs make the Salesforce side a few dozen requests, and with seed 3 the sequence
    // already holds a 429 and a 500 among its first six answers, so both are always met.
    await post(`${salesforce.instanceUrl}/_sandbox/faults`, { endpoint: '*', rate500: 0.1, rate429: 0.05, seed: 3 });
    const result: SyncProgress = await new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, {
      taskQueue,
      workflowId: `chaos-both-${Date.now()}`,
      args: [{ connectionId }],
    });
    clearInterval(expire);
    expect(result.finished).toBe(true);
    // The faults were really met on the Salesforce side (the sandbox counts the answers it replaced).
    const { injected } = (await (await fetch(`${salesforce.instanceUrl}/_sandbox/faults`)).json()) as { injected: Record<string, number> };
    expect(injected['500']).toBeGreaterThan(0);
    expect(injected['429']).toBeGreaterThan(0);

    await fetch(`${commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    await fetch(`${salesforce.instanceUrl}/_sandbox/faults`, { method: 'DELETE' });
    const expected = await expectSalesforceMatchesCommerce(commerce, salesforce);
    await expectOfferWriteBack(commerce, salesforce);
    // The records left out are exactly those the witness expects Salesforce to refuse (see sync.test.ts).
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort()).toEqual(expectedRejections(expected));
  } finally {
    clearInterval(expire);
    await worker.stop();
    await sandboxes.stop();
    await database.drop();
  }
}, 240_000); // every 429 waits the second it asks for, and retries back off: honest waiting
