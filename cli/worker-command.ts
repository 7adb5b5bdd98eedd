// `crm-sync worker`: one more worker process on the same task queue, against an existing Temporal
// cluster and PostgreSQL (scale-out). It starts nothing else.
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createConnectionStore } from '../store/connections.ts';
import { ConfigError, type AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { openDatabase } from '../store/database.ts';
import { resolveSecretBox } from '../store/secret-box.ts';
import { resolveTemporalCluster } from '../temporal/cluster.ts';
import { installTemporalRuntime } from '../temporal/runtime.ts';
import { createSyncWorker } from '../worker.ts';
import { checkAdminSettings, freeLoopbackPort, startAdmin } from '../admin/start.ts';
import { createReadinessProbe } from '../admin/health.ts';
import { createShutdown } from './shutdown.ts';

export async function workerCommand(config: AppConfig, logger: Logger): Promise<void> {
  if (!config.temporal.address || !config.database.url) {
    throw new ConfigError(
      'Invalid configuration:\n  TEMPORAL_ADDRESS and DATABASE_URL: `crm-sync worker` joins an existing cluster and database, ' +
        'so both must be set (use `crm-sync start` for the all-in-one local setup)',
    );
  }
  // The admin server's settings before anything starts: a short token exits 2 at once.
  checkAdminSettings(config);
  const temporalMetricsPort = await freeLoopbackPort();
  installTemporalRuntime(logger, { metricsBindAddress: `127.0.0.1:${temporalMetricsPort}` });
  const shutdown = createShutdown(logger);
  try {
    const database = await openDatabase(config, logger);
    shutdown.add('PostgreSQL pool', () => database.close());
    const cluster = await resolveTemporalCluster(config, logger);
    const connection = await NativeConnection.connect(cluster.connectionOptions);
    shutdown.add('the Temporal connection', () => connection.close());
    const client = new Client({ connection, namespace: cluster.namespace });
    const connections = createConnectionStore(database.pool, resolveSecretBox(config));
    // /readyz: PostgreSQL now, the Temporal connection and the worker as soon as each exists.
    const readiness = createReadinessProbe(database.pool);
    readiness.watchTemporal((signal) => connection.withAbortSignal(signal, () => connection.workflowService.getSystemInfo({})));
    const admin = await startAdmin(config, logger, database.pool, temporalMetricsPort, { pool: database.pool, connections, temporal: async () => client, taskQueue: config.temporal.taskQueue }, readiness);
    shutdown.add('the admin server', () => admin.server.stop());
    const worker = await createSyncWorker({ connection, namespace: cluster.namespace, taskQueue: config.temporal.taskQueue, pool: database.pool, secretBox: resolveSecretBox(config), limits: config.worker, metrics: admin.metrics, shutdownGraceMs: config.shutdownGraceMs });
    readiness.watchWorker(() => worker.getState());
    const running = worker.run();
    // SIGTERM: the worker stops polling (so /readyz turns 503) and lets running activities finish for up to
    // CRM_SYNC_SHUTDOWN_GRACE, then the admin server, the Temporal connection and the pool close, and it exits 0.
    shutdown.add('the worker', async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    logger.info({ temporal: cluster.describe(), taskQueue: config.temporal.taskQueue }, 'Worker running');
    await Promise.race([running, shutdown.requested]);
  } finally {
    await shutdown.run();
  }
}
