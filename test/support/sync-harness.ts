// Everything an end-to-end sync test needs: both sandboxes, a database with a connection to them, and
// helpers to read both sides and compute the CRM state the documented rules say there should be.
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import type { Entity } from '../../mappings/types.ts';
import type { SyncMetrics } from '../../metrics/sync-metrics.ts';
import { createSyncWorker } from '../../worker.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import type { TestDatabase } from './database.ts';

export const TEST_SECRET_BOX = new SecretBox(Buffer.alloc(32, 5));


export async function startSandboxes(commerceOptions: CommerceSandboxOptions = {}) {
  const commerce = await startCommerceSandbox(commerceOptions);
  const salesforce = await startSalesforceSandbox();
  return { commerce, salesforce, stop: async () => { await commerce.stop(); await salesforce.stop(); } };
}

/**
 * A stored connection between the sandboxes. The look-back is production's default (600 s), so the
 * tests meet the re-reads it causes; only a test about exact cursor positions should ask for another.
 */
export async function createSandboxConnection(database: TestDatabase, commerce: CommerceSandbox, salesforce: SalesforceSandbox, extra: { pageSize?: number; entities?: Entity[]; lookbackSeconds?: number } = {}) {
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
    crm: { loginUrl: salesforce.loginUrl, clientId: salesforce.clientId },
    entities: extra.entities,
    schedule: { every: '5m', pageSize: extra.pageSize ?? 1000, ...(extra.lookbackSeconds === undefined ? {} : { lookbackSeconds: extra.lookbackSeconds }) },
  });
  return createConnectionStore(database.pool, TEST_SECRET_BOX).create({
    name: `sandbox-${Date.now()}`,
    crmKind: 'salesforce',
    settings,
    secrets: { commerceClientSecret: commerce.clientSecret, crmClientSecret: salesforce.clientSecret },
  });
}

export async function salesforceCalls(salesforce: SalesforceSandbox): Promise<Record<string, number>> {
  const body: any = await (await fetch(`${salesforce.instanceUrl}/_sandbox/calls`)).json();
  return body.byEndpoint ?? body.counts ?? body;
}

export const writeCalls = (calls: Record<string, number>) =>
  Object.entries(calls).filter(([name, count]) => /upsert|create|update|bulk2|ingest|patch/i.test(name) && !/token/i.test(name) && count > 0).reduce((sum, [, count]) => sum + count, 0);

export { commerceDump, commerceSnapshot, expectedCrmState, expectedOrg, sameValue } from './expected-crm.ts';
export { salesforceDump } from './salesforce-state.ts';

/** The production worker on the test Temporal server, on its own task queue; stop() drains it. */
export async function startProductionWorker(database: TestDatabase, options: { taskQueue: string; secretBox?: SecretBox; metrics?: SyncMetrics }) {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await createSyncWorker({ connection, namespace: 'default', taskQueue: options.taskQueue, pool: database.pool, secretBox: options.secretBox ?? TEST_SECRET_BOX, metrics: options.metrics });
  const running = worker.run();
  return {
    connection,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
