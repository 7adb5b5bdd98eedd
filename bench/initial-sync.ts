// Benchmark: one initial sync of a commerce organization with 10,000 entitlements (and their buyers,
// contacts, offers and referrals) into the Salesforce sandbox, through the real workflow on a local
// Temporal dev server and an embedded PostgreSQL. Three Node processes, so each one's memory is its
// own: the sandboxes (bench/processes/sandboxes.ts), the worker (bench/processes/worker.ts, built
// with createSyncWorker) and this driver (PostgreSQL, Temporal, the connection, the workflow client).
// Prints one JSON line: seconds, records written, CRM calls against the minimum, commerce calls, and
// per process the kernel's peak RSS over its life and during the sync, and the sampled heapUsed peak.
// BENCH_ENTITLEMENTS (default 10000); BENCH_WORKER_EXEC_ARGV (e.g. "--heap-prof") and
// BENCH_TRACE_PAGES=1 (the worker's memory after each page, on stderr) are for investigating.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../config/logger.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../infra/embedded-postgres.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../infra/temporal-dev-server.ts';
import { createConnectionStore } from '../store/connections.ts';
import { createPool } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { SecretBox } from '../store/secret-box.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { startChild, type BenchChild } from './processes/ipc.ts';
import { createMemoryTracker, type MemoryReport } from './processes/memory.ts';

type SandboxesDescription = {
  commerce: { apiUrl: string; authUrl: string; clientId: string; clientSecret: string; organizationId: string; controlUrl: string };
  salesforce: { loginUrl: string; instanceUrl: string; clientId: string; clientSecret: string; controlUrl: string };
};

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);
const taskQueue = 'bench';
const secretKey = Buffer.alloc(32, 1);
const driverMemory = createMemoryTracker();
const logger = createLogger({ level: 'warn', format: 'json' });
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-bench-'));
chmodSync(dataDir, 0o755);

let postgres: EmbeddedPostgresHandle | undefined;
let temporal: TemporalDevServer | undefined;
let sandboxes: BenchChild<SandboxesDescription> | undefined;
let worker: BenchChild<{ pid: number }> | undefined;
let pool: ReturnType<typeof createPool> | undefined;
let connection: Connection | undefined;
try {
  // The sandboxes generate their data while PostgreSQL and Temporal start.
  const sandboxesStarting = startChild<SandboxesDescription>(path.join(import.meta.dirname, 'processes', 'sandboxes.ts'), { args: [String(entitlements), '1'] });
  [postgres, temporal, sandboxes] = await Promise.all([
    startEmbeddedPostgres({ dataDir, port: 54000 + Math.floor(Math.random() * 900), logger }),
    startTemporalDevServer({ port: 55000 + Math.floor(Math.random() * 900), logger }),
    sandboxesStarting,
  ]);
  const { commerce, salesforce } = sandboxes.info;
  pool = createPool(postgres.url);
  await migrate(pool, logger);
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
    crm: { loginUrl: salesforce.loginUrl, clientId: salesforce.clientId },
    schedule: { lookbackSeconds: 0 },
  });
  const { id: connectionId } = await createConnectionStore(pool, new SecretBox(secretKey)).create({
    name: 'bench',
    crmKind: 'salesforce',
    settings,
    secrets: { commerceClientSecret: commerce.clientSecret, crmClientSecret: salesforce.clientSecret },
  });
  worker = await startChild(path.join(import.meta.dirname, 'processes', 'worker.ts'), {
    env: { BENCH_TEMPORAL_ADDRESS: temporal.address, BENCH_DATABASE_URL: postgres.url, BENCH_TASK_QUEUE: taskQueue, BENCH_SECRET_KEY: secretKey.toString('base64') },
    execArgv: process.env.BENCH_WORKER_EXEC_ARGV?.split(' ').filter(Boolean),
  });
  connection = await Connection.connect({ address: temporal.address });

  await fetch(`${commerce.controlUrl}/calls/reset`, { method: 'POST' });
  await fetch(`${salesforce.controlUrl}/calls/reset`, { method: 'POST' });
  await Promise.all([worker.mark(), sandboxes.mark()]);
  driverMemory.mark();
  const started = performance.now();
  const execution = new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `bench-${Date.now()}`, args: [{ connectionId }] });
  const result: SyncProgress = await sandboxes.whileAlive(worker.whileAlive(execution));
  const seconds = (performance.now() - started) / 1000;
  const commerceCalls: any = await (await fetch(`${commerce.controlUrl}/calls`)).json();
  const salesforceCalls: any = await (await fetch(`${salesforce.controlUrl}/calls`)).json();
  const memory: Record<'worker' | 'sandboxes' | 'driver', MemoryReport> = { worker: await worker.stop(), sandboxes: await sandboxes.stop(), driver: driverMemory.report() };
  worker = sandboxes = undefined;
  const records = Object.fromEntries(Object.entries(result.entities).map(([entity, progress]) => [entity, progress!.created + progress!.updated]));
  const minimumWriteCalls = Object.values(records).reduce((sum, count) => sum + Math.ceil(count / 200), 0);
  // Every request that writes: collection calls, and each step of a Bulk API 2.0 job (create, upload,
  // close, polls, results).
  const writeRequests = Object.entries(salesforceCalls as Record<string, number>).filter(([kind]) => /^(composite-|bulk2-)/.test(kind)).reduce((sum, [, count]) => sum + count, 0);
  const perProcess = (pick: (report: MemoryReport) => number) => Object.fromEntries(Object.entries(memory).map(([name, report]) => [name, pick(report)]));
  console.log(
    JSON.stringify({
      bench: 'initial-sync',
      entitlements,
      seconds: Number(seconds.toFixed(2)),
      recordsWritten: records,
      failed: result.totals.failed,
      crmCalls: salesforceCalls,
      crmWriteRequests: writeRequests,
      bulkJobs: salesforceCalls['bulk2-create'] ?? 0,
      // What sObject Collections alone (200 records a call) would need at the very least.
      minimumCollectionWriteCalls: minimumWriteCalls,
      commerceCalls: commerceCalls.total ?? commerceCalls,
      // The kernel's high-water mark of each process over its whole life (the worker's includes bundling
      // the workflows at start-up, the sandboxes' generating their data) ...
      peakRssMB: perProcess((report) => report.maxRssMB),
      // ... and during the sync only, with the RSS when it began and the main thread's heapUsed peak.
      syncPeakRssMB: perProcess((report) => report.phasePeakRssMB),
      rssAtSyncStartMB: perProcess((report) => report.rssAtMarkMB),
      syncPeakHeapUsedMB: perProcess((report) => report.phasePeakHeapUsedMB),
    }),
  );
} finally {
  worker?.kill();
  sandboxes?.kill();
  await connection?.close();
  await pool?.end();
  await temporal?.stop();
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
