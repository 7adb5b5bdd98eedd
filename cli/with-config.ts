// Runs a command with the validated configuration and a logger. A configuration error ends with exit
// code 2 and one line per variable; an ExitError with its own code (exit-codes.ts) and its message only;
// any other error is logged with its cause and ends with exit code 1. Under --json the message is also
// `{"error": ...}` on stdout (output.ts).
import { ConfigError, loadConfig, type AppConfig } from '../config/config.ts';
import { createLogger, type Logger } from '../config/logger.ts';
import { EXIT, ExitError } from './exit-codes.ts';
import { reportError } from './output.ts';
import { configErrorLines } from './usage-errors.ts';

export type Action = (config: AppConfig, logger: Logger) => Promise<void>;
export type withConfigType = (action: Action) => () => Promise<void>;

export const withConfig: withConfigType = (action) => async () => {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      reportError(configErrorLines(error.message));
      process.exitCode = EXIT.usage;
      return;
    }
    throw error;
  }
  const logger = createLogger(config.log);
  try {
    await action(config, logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      reportError(configErrorLines(error.message));
      process.exitCode = EXIT.usage;
      return;
    }
    if (error instanceof ExitError) {
      reportError(error.message);
      process.exitCode = error.exitCode;
      return;
    }
    logger.fatal({ err: error }, (error as Error).message);
    reportError((error as Error).message);
    process.exitCode = EXIT.failed;
  }
};
