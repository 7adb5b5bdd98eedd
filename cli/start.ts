// `crm-sync start` (what `npm start` runs): the whole job on embedded defaults. PostgreSQL (embedded
// unless DATABASE_URL), Temporal (a local dev server unless TEMPORAL_ADDRESS), the schedules, the worker.
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { openDatabase } from '../store/database.ts';
import { resolveSecretBox } from '../store/secret-box.ts';
import { resolveTemporalCluster } from '../temporal/cluster.ts';
import { installTemporalRuntime } from '../temporal/runtime.ts';
import { createSyncWorker } from '../worker.ts';
import { createConnectionStore } from '../store/connections.ts';
import { triggerSync } from '../temporal/sync-schedules.ts';
import { ensureAllSchedules } from './schedules-command.ts';
import { adminTokenWhere, checkAdminSettings, freeLoopbackPort, startAdmin } from '../admin/start.ts';
import { createShutdown } from './shutdown.ts';
import { createReadinessProbe } from '../admin/health.ts';
import { ensureDemoConnections, startDemoSandboxes } from './demo.ts';
import { mkdirSync } from 'node:fs';

export async function startCommand(config: AppConfig, logger: Logger): Promise<void> {
  // The admin server's settings before anything starts: a short token exits 2 at once.
  checkAdminSettings(config);
  const temporalMetricsPort = await freeLoopbackPort();
  installTemporalRuntime(logger, { metricsBindAddress: `127.0.0.1:${temporalMetricsPort}` });
  const shutdown = createShutdown(logger);
  try {
    logger.info({ dataDir: config.dataDir, demo: config.demo }, 'Starting commerce-crm-sync');
    mkdirSync(config.dataDir, { recursive: true });
    const sandboxes = config.demo ? await startDemoSandboxes(config, logger) : undefined;
    if (sandboxes) shutdown.add('the sandboxes', () => sandboxes.stop());
    const secrets = resolveSecretBox(config);
    logger.debug({ keyId: secrets.keyId }, 'Connection secrets key loaded');
    const database = await openDatabase(config, logger);
    shutdown.add('PostgreSQL', () => database.close());
    const cluster = await resolveTemporalCluster(config, logger);
    if (cluster.devServer) shutdown.add('the Temporal dev server', () => cluster.devServer!.stop());
    const connection = await NativeConnection.connect(cluster.connectionOptions);
    shutdown.add('the Temporal connection', () => connection.close());
    const client = new Client({ connection, namespace: cluster.namespace });

    const connectionStore = createConnectionStore(database.pool, secrets);
    const demoConnectionIds = sandboxes ? await ensureDemoConnections(database.pool, connectionStore, sandboxes, logger) : [];
    // Every stored connection has its schedules (created by `connect`; re-asserted here after restores).
    await ensureAllSchedules(client, connectionStore, config, logger);

    // /readyz as on `crm-sync worker`: PostgreSQL, Temporal and the worker polling.
    const readiness = createReadinessProbe(database.pool);
    readiness.watchTemporal((signal) => connection.withAbortSignal(signal, () => connection.workflowService.getSystemInfo({})));
    const admin = await startAdmin(config, logger, database.pool, temporalMetricsPort, { pool: database.pool, connections: connectionStore, temporal: async () => client, taskQueue: config.temporal.taskQueue }, readiness);
    shutdown.add('the admin server', () => admin.server.stop());
    const worker = await createSyncWorker({ connection, namespace: cluster.namespace, taskQueue: config.temporal.taskQueue, pool: database.pool, secretBox: secrets, limits: config.worker, metrics: admin.metrics, shutdownGraceMs: config.shutdownGraceMs });
    const running = worker.run();
    readiness.watchWorker(() => worker.getState());
    shutdown.add('the worker', async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    // The demo starts syncing at once rather than at the schedule's first tick.
    for (const id of demoConnectionIds) await triggerSync(client, id);
    logger.info(
      {
        temporal: cluster.describe(),
        webUi: cluster.devServer?.uiUrl,
        database: database.origin,
        taskQueue: config.temporal.taskQueue,
        console: `${admin.server.url}/`,
      },
      `Worker running.${cluster.devServer?.uiUrl ? ` Temporal Web UI: ${cluster.devServer.uiUrl}.` : ''} Console: ${admin.server.url}/ (admin token in ${adminTokenWhere(config)})`,
    );
    // The worker stops on a signal, or by itself on a fatal error: either way everything else stops too.
    await Promise.race([running, shutdown.requested]);
  } finally {
    await shutdown.run();
  }
}
