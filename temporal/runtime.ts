// Installs the Temporal Runtime once: its logs go through pino, and it does not grab SIGINT/SIGTERM,
// because our own shutdown must stop the worker first, then the dev server, then PostgreSQL. With a
// metrics address, the SDK's own metrics are exported in Prometheus' format there (the admin server
// serves them with the sync's on /metrics).
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../config/logger.ts';

let installed = false;

export function installTemporalRuntime(logger: Logger, options: { metricsBindAddress?: string } = {}): void {
  if (installed) return;
  installed = true;
  const temporalLogger = new DefaultLogger('INFO', (entry) => {
    const level = entry.level.toLowerCase() as Lowercase<LogLevel>;
    const method = level === 'trace' ? 'trace' : level;
    logger[method]({ component: 'temporal-sdk', ...entry.meta }, entry.message);
  });
  Runtime.install({
    logger: temporalLogger,
    shutdownSignals: [],
    ...(options.metricsBindAddress && { telemetryOptions: { metrics: { prometheus: { bindAddress: options.metricsBindAddress } } } }),
  });
}
