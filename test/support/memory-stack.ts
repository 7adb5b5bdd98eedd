// A commerce sandbox, a real PostgreSQL database and the in-memory CRM joined by one stored connection:
// what a test of the one record path (activities/record-sync.ts) needs, started and stopped in one call.
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { ConnectionRuntime } from '../../sync/runtime.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createMemoryCrm, memoryConnection } from './memory-crm.ts';

export type MemoryStack = { database: TestDatabase; commerce: CommerceSandbox; crm: ReturnType<typeof createMemoryCrm>; runtime: ConnectionRuntime; connectionId: string; stop(): Promise<void> };

export async function startMemoryStack(options: { name: string; seed: number; entitlements?: number }): Promise<MemoryStack> {
  const database = await createTestDatabase();
  const commerce = await startCommerceSandbox({ entitlements: options.entitlements ?? 10, seed: options.seed });
  const crm = createMemoryCrm();
  const made = await memoryConnection(database.pool, commerce, { name: options.name, crm: crm.connector });
  return {
    database,
    commerce,
    crm,
    runtime: made.runtime as ConnectionRuntime,
    connectionId: made.connectionId,
    async stop() {
      await commerce.stop();
      await database.drop();
    },
  };
}
