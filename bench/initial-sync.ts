// Benchmark: one initial sync of a commerce organization with 10,000 entitlements (and their buyers,
// contacts, offers and referrals) into the Salesforce sandbox, through the real workflow on a local
// Temporal dev server and an embedded PostgreSQL. Three Node processes, so each one's memory is its
// own: the sandboxes (bench/processes/sandboxes.ts), the worker (bench/processes/worker.ts, built
// with createSyncWorker) and this driver (PostgreSQL, Temporal, the connection, the workflow client).
// Prints one JSON line: seconds, records written, CRM calls against the minimum, commerce calls, and
// per process the kernel's peak RSS over its life and during the sync, and the sampled heapUsed peak.
// BENCH_ENTITLEMENTS (default 10000); BENCH_WORKER_EXEC_ARGV (e.g. "--heap-prof") and
// BENCH_TRACE_PAGES=1 (the worker's memory after each page, on stderr) are for investigating.
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { createMemoryTracker, type MemoryReport } from './processes/memory.ts';
import { startBenchStack, type BenchStack } from './processes/stack.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);
const driverMemory = createMemoryTracker();

let stack: BenchStack | undefined;
try {
  stack = await startBenchStack({ name: 'bench', entitlements, secretKey: Buffer.alloc(32, 1), workerExecArgv: process.env.BENCH_WORKER_EXEC_ARGV?.split(' ').filter(Boolean) });
  const { commerce, salesforce, worker, sandboxes, connectionId, taskQueue, client } = stack;

  await fetch(`${commerce.controlUrl}/calls/reset`, { method: 'POST' });
  await fetch(`${salesforce.controlUrl}/calls/reset`, { method: 'POST' });
  await Promise.all([worker.mark(), sandboxes.mark()]);
  driverMemory.mark();
  const started = performance.now();
  const result: SyncProgress = await stack.alive(client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `bench-${Date.now()}`, args: [{ connectionId }] }));
  const seconds = (performance.now() - started) / 1000;
  const commerceCalls: any = await (await fetch(`${commerce.controlUrl}/calls`)).json();
  const salesforceCalls: any = await (await fetch(`${salesforce.controlUrl}/calls`)).json();
  const memory: Record<'worker' | 'sandboxes' | 'driver', MemoryReport> = { worker: await worker.stop(), sandboxes: await sandboxes.stop(), driver: driverMemory.report() };
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
  await stack?.stop();
}
