// Benchmark child: the sync worker alone in its process (created exactly as the worker command does,
// with createSyncWorker), so its peak memory is its own. Environment: BENCH_TEMPORAL_ADDRESS,
// BENCH_DATABASE_URL, BENCH_TASK_QUEUE, BENCH_SECRET_KEY (base64); BENCH_WORKER_ACTIVITY_SLOTS (optional). BENCH_TRACE_PAGES=1 writes the
// worker's memory after every page activity to stderr, BENCH_ALLOCATION_PROFILE=<file> writes a V8
// sampling heap profile of everything the main thread allocated during the sync, collected or not
// (for finding what a peak is made of; open it in Chrome DevTools).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities/index.ts';
import { poolMaxFor } from '../../config/config.ts';
import { createLogger } from '../../config/logger.ts';
import { createPool } from '../../store/database.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { installTemporalRuntime } from '../../temporal/runtime.ts';
import { createSyncWorker, defaultWorkerIdentity } from '../../worker.ts';
import { failToDriver, serveDriver } from './ipc.ts';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

try {
  const logger = createLogger({ level: 'warn', format: 'json' });
  installTemporalRuntime(logger);
  const slots = process.env.BENCH_WORKER_ACTIVITY_SLOTS ? Number(process.env.BENCH_WORKER_ACTIVITY_SLOTS) : undefined;
  // As the worker command sizes it (config/config.ts poolMaxFor): a page activity holds a connection for its batch.
  const pool = createPool(env('BENCH_DATABASE_URL'), slots ? { max: poolMaxFor(slots) } : undefined);
  const secretBox = new SecretBox(Buffer.from(env('BENCH_SECRET_KEY'), 'base64'));
  const connection = await NativeConnection.connect({ address: env('BENCH_TEMPORAL_ADDRESS') });
  const worker = await createSyncWorker({
    connection,
    namespace: 'default',
    taskQueue: env('BENCH_TASK_QUEUE'),
    pool,
    secretBox,
    extraActivities: process.env.BENCH_TRACE_PAGES === '1' ? tracedPageActivity(pool, secretBox) : undefined,
    // BENCH_WORKER_ACTIVITY_SLOTS: as CRM_SYNC_MAX_CONCURRENT_ACTIVITIES would set them (the default otherwise).
    limits: slots ? { maxConcurrentActivities: slots } : undefined,
  });
  const running = worker.run();
  running.catch(failToDriver);
  serveDriver({ pid: process.pid }, async () => {
    worker.shutdown();
    await running;
    await connection.close();
    await pool.end();
  }, allocationProfile(process.env.BENCH_ALLOCATION_PROFILE));
} catch (error) {
  await failToDriver(error);
}

/** Start and end of a sampling heap profile that keeps the samples of collected objects too. */
function allocationProfile(file: string | undefined) {
  if (!file) return {};
  const session = new Session();
  session.connect();
  return {
    async start() {
      await session.post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    },
    async end() {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      await writeFile(file, JSON.stringify(profile));
    },
  };
}

/** The page activity, same code, with one stderr line of memory after each page. */
function tracedPageActivity(pool: Parameters<typeof createActivities>[0]['pool'], secretBox: SecretBox) {
  const { syncEntityPage } = createActivities({ pool, secretBox, workerIdentity: defaultWorkerIdentity() });
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    async syncEntityPage(input: Parameters<typeof syncEntityPage>[0]) {
      const before = process.memoryUsage();
      // With --expose-gc: the page's live set, sampled by collecting every 250 ms while it runs.
      let livePeak = 0;
      const gc = (globalThis as { gc?: () => void }).gc;
      const sampler = gc && setInterval(() => (gc(), (livePeak = Math.max(livePeak, process.memoryUsage().heapUsed))), 250);
      const outcome = await syncEntityPage(input).finally(() => clearInterval(sampler));
      const after = process.memoryUsage();
      // With --expose-gc: what the page left reachable, apart from garbage not yet collected.
      gc?.();
      const collected = gc ? mb(process.memoryUsage().heapUsed) : undefined;
      process.stderr.write(
        `${JSON.stringify({ trace: 'page', entity: input.entity, records: outcome.records, written: outcome.created + outcome.updated, rssMB: [mb(before.rss), mb(after.rss)], heapUsedMB: [mb(before.heapUsed), mb(after.heapUsed)], heapUsedAfterGcMB: collected, livePeakMB: gc ? mb(livePeak) : undefined, externalMB: mb(after.external), arrayBuffersMB: mb(after.arrayBuffers) })}\n`,
      );
      return outcome;
    },
  };
}
