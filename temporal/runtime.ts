// Installs the Temporal Runtime once: its logs go through pino, and it does not grab SIGINT/SIGTERM,
// because our own shutdown must stop the worker first, then the dev server, then PostgreSQL.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../config/logger.ts';

let installed = false;

export function installTemporalRuntime(logger: Logger): void {
  if (installed) return;
  installed = true;
  const temporalLogger = new DefaultLogger('INFO', (entry) => {
    const level = entry.level.toLowerCase() as Lowercase<LogLevel>;
    const method = level === 'trace' ? 'trace' : level;
    logger[method]({ component: 'temporal-sdk', ...entry.meta }, entry.message);
  });
  Runtime.install({ logger: temporalLogger, shutdownSignals: [] });
}
