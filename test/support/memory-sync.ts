// What an activity-level sync test stands on: its own database, a commerce sandbox, an in-memory CRM,
// a stored connection between them and the sync activities wired to it. The memory CRM refuses a child
// whose parent is missing, as Salesforce does, so by default the buyers' Accounts (which every other
// record hangs off, and which have no parent themselves) are synced first, as the workflow does.
import { createSyncActivities } from '../../activities/sync.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createMemoryCrm, fullPass, memoryConnection } from './memory-crm.ts';

export type MemorySync = {
  database: TestDatabase;
  commerce: CommerceSandbox;
  crm: ReturnType<typeof createMemoryCrm>;
  activities: ReturnType<typeof createSyncActivities>;
  connectionId: string;
  stop(): Promise<void>;
};

export async function startMemorySync(options: {
  name: string;
  entitlements: number;
  seed: number;
  pageSize: number;
  minRetryDelayMs?: number;
  writeChunk?: number;
  /** false: the CRM starts empty, without the buyers' Accounts. */
  accountsFirst?: boolean;
  /** Production's 600 s unless a test about cursor positions needs another. */
  lookbackSeconds?: number;
}): Promise<MemorySync> {
  const database = await createTestDatabase();
  const commerce = await startCommerceSandbox({ entitlements: options.entitlements, seed: options.seed });
  const crm = createMemoryCrm();
  const made = await memoryConnection(database.pool, commerce, { name: options.name, pageSize: options.pageSize, crm: crm.connector, minRetryDelayMs: options.minRetryDelayMs, lookbackSeconds: options.lookbackSeconds });
  const activities = createSyncActivities({ pool: database.pool, runtimeFor: async () => made.runtime, writeChunk: options.writeChunk });
  if (options.accountsFirst !== false) await fullPass(activities, made.connectionId, 'buyer');
  return {
    database,
    commerce,
    crm,
    activities,
    connectionId: made.connectionId,
    async stop() {
      await commerce.stop();
      await database.drop();
    },
  };
}
