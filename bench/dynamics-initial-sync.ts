// Benchmark: one initial sync of a commerce organization with 10,000 entitlements (and their buyers,
// contacts, offers and referrals) into the Dataverse sandbox, through the real workflow on a local
// Temporal dev server and an embedded PostgreSQL. Prints the $batch calls it took against the fewest the
// batch limit allows (1,000 operations per $batch, per entity), the other Web API calls by kind, $batch
// calls per 10,000 entitlements, and the run's time. One JSON line. BENCH_ENTITLEMENTS (default 10000).
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { startBenchStack, type BenchStack } from './processes/stack.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);
const BATCH_LIMIT = 1000;

let stack: BenchStack | undefined;
try {
  stack = await startBenchStack({ name: 'bench-dynamics', entitlements, secretKey: Buffer.alloc(32, 1), crm: 'dynamics' });
  const { commerce, dynamics, connectionId, taskQueue, client } = stack;
  await fetch(`${commerce.controlUrl}/calls/reset`, { method: 'POST' });
  await fetch(`${dynamics.controlUrl}/calls`, { method: 'DELETE' });
  const started = performance.now();
  const result: SyncProgress = await stack.alive(client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `bench-dynamics-${Date.now()}`, args: [{ connectionId }] }));
  const seconds = (performance.now() - started) / 1000;
  const calls = (await (await fetch(`${dynamics.controlUrl}/calls`)).json()) as Record<string, number>;
  const records = Object.fromEntries(Object.entries(result.entities).map(([entity, progress]) => [entity, progress!.created + progress!.updated]));
  const minimumBatches = Object.values(records).reduce((sum, count) => sum + Math.ceil(count / BATCH_LIMIT), 0);
  const batches = calls['POST $batch'] ?? 0;
  console.log(
    JSON.stringify({
      bench: 'dynamics-initial-sync',
      crm: 'dynamics',
      entitlements,
      seconds: Number(seconds.toFixed(2)),
      recordsWritten: records,
      failed: result.totals.failed,
      batchCalls: batches,
      minimumBatchCalls: minimumBatches,
      batchCallsVsMinimum: minimumBatches ? Number((batches / minimumBatches).toFixed(2)) : null,
      batchCallsPer10000Entitlements: Math.round((batches * 10_000) / entitlements),
      batchOperations: calls['$batch operations'] ?? null,
      dynamicsCalls: calls,
    }),
  );
} finally {
  await stack?.stop();
}
