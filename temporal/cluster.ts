// Where Temporal runs: an existing cluster or Temporal Cloud when TEMPORAL_ADDRESS is set (read, with
// namespace, TLS and API key, by @temporalio/envconfig exactly as the Temporal CLI reads them),
// otherwise a local dev server that this process starts and stops.
import path from 'node:path';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../infra/temporal-dev-server.ts';

export type TemporalCluster = {
  connectionOptions: NativeConnectionOptions;
  namespace: string;
  /** Present when we started a local dev server. */
  devServer?: TemporalDevServer;
  describe(): string;
};

export async function resolveTemporalCluster(config: AppConfig, logger: Logger): Promise<TemporalCluster> {
  if (config.temporal.address) {
    const { connectionOptions, namespace } = loadClientConnectConfig();
    return {
      connectionOptions,
      namespace: namespace ?? config.temporal.namespace,
      describe: () => `${connectionOptions.address} (namespace ${namespace ?? config.temporal.namespace})`,
    };
  }
  const devServer = await startTemporalDevServer({
    dbFile: path.join(config.dataDir, 'temporal', 'temporal.db'),
    port: config.temporal.devServerPort,
    uiPort: config.temporal.devServerUiPort,
    cliPath: config.temporal.cliPath,
    namespace: config.temporal.namespace,
    logger,
  });
  return {
    connectionOptions: { address: devServer.address },
    namespace: config.temporal.namespace,
    devServer,
    describe: () => `local dev server ${devServer.address} (${devServer.origin})`,
  };
}

/**
 * For short-lived commands (connect, backfill): the configured cluster, else the local dev server that
 * `crm-sync start` runs. Never starts a server of its own.
 */
export async function connectToRunningTemporal(config: AppConfig): Promise<{ connectionOptions: NativeConnectionOptions; namespace: string }> {
  if (config.temporal.address) {
    const { connectionOptions, namespace } = loadClientConnectConfig();
    return { connectionOptions, namespace: namespace ?? config.temporal.namespace };
  }
  return { connectionOptions: { address: `127.0.0.1:${config.temporal.devServerPort}` }, namespace: config.temporal.namespace };
}
