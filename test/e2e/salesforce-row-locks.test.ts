// A Salesforce org where other work holds records' parents: a share of child rows (Contacts and
// Opportunities under an Account, entitlements under an Opportunity, referrals) meets UNABLE_TO_LOCK_ROW.
// The sync still lands every record on its first run: no dead letter but the ones the witness expects
// Salesforce to refuse for other reasons, and no child left behind because its parent met a lock. Real
// Temporal, real PostgreSQL, the commerce and Salesforce sandboxes, the production worker.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { control } from '../../sandbox/salesforce/testing.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

describe('Salesforce row locks: a sync at a 10% lock rate leaves no dead letter behind (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `row-locks-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('salesforce', { entitlements: 150, seed: 23 }, { sandbox: { lockFailureRate: 0.1, lockSeed: 4 } });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 100 })).id;
    worker = await startProductionWorker(database, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('writes every record, parents and children alike, on the first run; only records Salesforce refuses for good wait as dead letters', async () => {
    const progress: SyncProgress = await new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, {
      taskQueue,
      workflowId: `row-locks-${connectionId}`,
      args: [{ connectionId }],
    });
    expect(progress.finished).toBe(true);

    // The org did refuse rows for locks: enough that, left to dead letters, records would be missing.
    const locks = await control(sandboxes.crm.salesforce!, 'GET', '/row-locks');
    expect(locks.failed).toBeGreaterThan(10);

    const rejected = await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce);
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(letters.filter((letter) => letter.reason.startsWith('UNABLE_TO_LOCK_ROW'))).toEqual([]);
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort()).toEqual(rejected);
    expect(progress.totals.failed).toBe(rejected.length);
  });
});
