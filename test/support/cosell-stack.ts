// What a co-sell end-to-end test stands on: both sandboxes, a database with a connection between them,
// the production worker, the buyers' Accounts synced from the commerce side, and a way to run a workflow.
import { Client } from '@temporalio/client';
import type { Entity } from '../../mappings/types.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase } from './database.ts';
import { createSandboxConnection, startProductionWorker, startSandboxes } from './sync-harness.ts';

export async function startCosellStack(options: { name: string; entitlements: number; seed: number; entities?: Entity[] }) {
  const database = await createTestDatabase();
  const sandboxes = await startSandboxes({ entitlements: options.entitlements, seed: options.seed });
  const connectionId = (await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: options.entities ?? ['buyer'] })).id;
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
