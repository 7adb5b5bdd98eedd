// What a co-sell end-to-end test stands on: both sandboxes, a database with a connection between them,
// the production worker, the buyers' Accounts synced from the commerce side, and a way to run a workflow.
import { Client } from '@temporalio/client';
import type { Entity } from '../../mappings/types.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase } from './database.ts';
import { createCrmConnection, startSandboxesFor, type CrmSandboxOptions, type CrmUnderTestKind } from './crm-sandbox.ts';
import { startProductionWorker } from './sync-harness.ts';

/**
 * `crm`: which CRM the seller works in (default Salesforce); `sandboxes.crm` drives it, `sandboxes.salesforce` is set for Salesforce.
 * `crmOptions`: how that CRM's sandbox starts and what its admin did before (an org set up by an older release).
 */
/**
 * `partnerReviewSeconds`: how long the partner reviews a submitted referral (default 0: no review, the
 * referral stays SUBMITTED and takes updates), so tests of other things are not held by a review; the
 * lifecycle tests set one.
 */
/** `commerceRequestTimeoutMs`: the connection's commerce client timeout, which also bounds how long a lost create is waited out. */
/**
 * `lookbackSeconds`: how far before its stored position each run reads again (default: the connection's,
 * 10 minutes), so a file's later runs need not read every record its earlier cases made.
 */
export async function startCosellStack(options: { name: string; entitlements: number; seed: number; entities?: Entity[]; crm?: CrmUnderTestKind; crmOptions?: CrmSandboxOptions; partnerReviewSeconds?: number; commerceRequestTimeoutMs?: number; lookbackSeconds?: number }) {
  const database = await createTestDatabase();
  const started = await startSandboxesFor(options.crm ?? 'salesforce', { entitlements: options.entitlements, seed: options.seed, partnerReviewSeconds: options.partnerReviewSeconds ?? 0 }, options.crmOptions);
  const sandboxes = { ...started, salesforce: started.crm.salesforce! };
  const connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: options.entities ?? ['buyer'], lookbackSeconds: options.lookbackSeconds, ...(options.commerceRequestTimeoutMs && { commerceSettings: { requestTimeoutMs: options.commerceRequestTimeoutMs } }) })).id;
  const taskQueue = `${options.name}-${Date.now()}`;
  const worker = await startProductionWorker(database, { taskQueue });
  const run = (type: string): Promise<any> =>
    new Client({ connection: worker.connection }).workflow.execute(type, { taskQueue, workflowId: `${options.name}-${type}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, args: [{ connectionId }] });
  await run(WORKFLOW_TYPES.incrementalSync);
  return {
    database,
    sandboxes,
    worker,
    connectionId,
    taskQueue,
    run,
    async stop() {
      await worker.stop();
      await sandboxes.stop();
      await database.drop();
    },
  };
}

export type CosellStack = Awaited<ReturnType<typeof startCosellStack>>;
