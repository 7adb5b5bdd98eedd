// Benchmark: one initial sync of a commerce organization with 10,000 entitlements (and their buyers,
// contacts, offers and referrals) into the Salesforce sandbox, through the real workflow on a local
// Temporal dev server and an embedded PostgreSQL. Prints one JSON line: seconds, CRM write calls
// against the minimum possible, commerce calls, peak memory of the process (worker included).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createLogger } from '../config/logger.ts';
import { startEmbeddedPostgres } from '../infra/embedded-postgres.ts';
import { startTemporalDevServer } from '../infra/temporal-dev-server.ts';
import { startAllSandboxes } from '../sandbox/start-all.ts';
import { createConnectionStore } from '../store/connections.ts';
import { createPool } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { SecretBox } from '../store/secret-box.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { installTemporalRuntime } from '../temporal/runtime.ts';
import { createSyncWorker } from '../worker.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);
const logger = createLogger({ level: 'warn', format: 'json' });
installTemporalRuntime(logger);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-bench-'));
chmodSync(dataDir, 0o755);
const postgres = await startEmbeddedPostgres({ dataDir, port: 54000 + Math.floor(Math.random() * 900), logger });
const temporal = await startTemporalDevServer({ port: 55000 + Math.floor(Math.random() * 900), logger });
const sandboxes = await startAllSandboxes({ entitlements, seed: 1 });
const pool = createPool(postgres.url);
await migrate(pool, logger);
const box = new SecretBox(Buffer.alloc(32, 1));
const settings = connectionSettingsSchema.parse({
  commerce: { baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, organizationId: sandboxes.commerce.organizationId },
  crm: { loginUrl: sandboxes.salesforce.loginUrl, clientId: sandboxes.salesforce.clientId },
  schedule: { lookbackSeconds: 0 },
});
const { id: connectionId } = await createConnectionStore(pool, box).create({ name: 'bench', crmKind: 'salesforce', settings, secrets: { commerceClientSecret: sandboxes.commerce.clientSecret, crmClientSecret: sandboxes.salesforce.clientSecret } });
const connection = await NativeConnection.connect({ address: temporal.address });
const worker = await createSyncWorker({ connection, namespace: 'default', taskQueue: 'bench', pool, secretBox: box });
const running = worker.run();

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls/reset`, { method: 'POST' });
const started = performance.now();
const result: SyncProgress = await new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue: 'bench', workflowId: `bench-${Date.now()}`, args: [{ connectionId }] });
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);

const commerceCalls: any = await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json();
const salesforceCalls: any = await (await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls`)).json();
const records = Object.fromEntries(Object.entries(result.entities).map(([entity, progress]) => [entity, progress!.created + progress!.updated]));
const minimumWriteCalls = Object.values(records).reduce((sum, count) => sum + Math.ceil(count / 200), 0);
console.log(
  JSON.stringify({
    bench: 'initial-sync',
    entitlements,
    seconds: Number(seconds.toFixed(2)),
    recordsWritten: records,
    failed: result.totals.failed,
    crmCalls: salesforceCalls,
    minimumCollectionWriteCalls: minimumWriteCalls,
    commerceCalls: commerceCalls.total ?? commerceCalls,
    peakRssMB: Math.round(peakRss / 2 ** 20),
  }),
);
worker.shutdown();
await running;
await connection.close();
await pool.end();
await sandboxes.stop();
await temporal.stop();
await postgres.stop();
rmSync(dataDir, { recursive: true, force: true });
