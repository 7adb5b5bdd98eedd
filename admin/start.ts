// What `crm-sync start` and `crm-sync worker` run beside the worker: the metrics the activities count
// and the admin server that serves them (with the Temporal SDK's), its token resolved and its address
// told. The token itself goes only to a person at a terminal, never into the logs.
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import type pg from 'pg';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { createSyncMetrics, type SyncMetrics } from '../metrics/sync-metrics.ts';
import { startAdminServer, type AdminServer } from './server.ts';
import { resolveAdminToken } from './token.ts';

/** A free loopback port for the Temporal SDK's metrics exporter (the admin server reads it from there). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startAdmin(config: AppConfig, logger: Logger, pool: pg.Pool, temporalMetricsPort?: number): Promise<{ metrics: SyncMetrics; server: AdminServer }> {
  mkdirSync(config.dataDir, { recursive: true });
  const metrics = createSyncMetrics({ pool });
  const token = resolveAdminToken({ fromEnvironment: config.admin.token, dataDir: config.dataDir });
  const server = await startAdminServer({
    host: config.admin.host,
    port: config.admin.port,
    token: token.value,
    metrics,
    temporalMetricsUrl: temporalMetricsPort ? `http://127.0.0.1:${temporalMetricsPort}/metrics` : undefined,
  });
  const where = token.source === 'environment' ? 'CRM_SYNC_ADMIN_TOKEN' : token.file;
  logger.info({ admin: server.url, metrics: `${server.url}/metrics`, token: where }, `Admin server: ${server.url}/metrics (bearer token in ${where})`);
  if (process.stdout.isTTY) process.stdout.write(`Admin server: ${server.url}/metrics  token: ${token.value}\n`);
  return { metrics, server };
}
