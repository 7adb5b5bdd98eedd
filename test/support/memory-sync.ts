// What an activity-level sync test stands on: its own database, a commerce sandbox, an in-memory CRM,
// a stored connection between them and the sync activities wired to it.
import { createSyncActivities } from '../../activities/sync.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createMemoryCrm, memoryConnection } from './memory-crm.ts';

export type MemorySync = {
  database: TestDatabase;
  commerce: CommerceSandbox;
  crm: ReturnType<typeof createMemoryCrm>;
  activities: ReturnType<typeof createSyncActivities>;
  connectionId: string;
  stop(): Promise<void>;
};

export async function startMemorySync(options: { name: string; entitlements: number; seed: number; pageSize: number; minRetryDelayMs?: number; writeChunk?: number }): Promise<MemorySync> {
  const database = await createTestDatabase();
  const commerce = await startCommerceSandbox({ entitlements: options.entitlements, seed: options.seed });
  const crm = createMemoryCrm(SALESFORCE_MAPPINGS);
  const made = await memoryConnection(database.pool, commerce, { name: options.name, pageSize: options.pageSize, crm: crm.connector, minRetryDelayMs: options.minRetryDelayMs });
  const activities = createSyncActivities({ pool: database.pool, runtimeFor: async () => made.runtime, writeChunk: options.writeChunk });
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
