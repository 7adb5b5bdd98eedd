// Runs a command with the validated configuration and a logger. A configuration error ends with exit
// code 2 and its message only; an ExitError with its own code (exit-codes.ts); any other error is logged with its cause and ends with exit code 1.
import { ConfigError, loadConfig, type AppConfig } from '../config/config.ts';
import { createLogger, type Logger } from '../config/logger.ts';
import { EXIT, ExitError } from './exit-codes.ts';

export type Action = (config: AppConfig, logger: Logger) => Promise<void>;
export type withConfigType = (action: Action) => () => Promise<void>;

export const withConfig: withConfigType = (action) => async () => {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.log);
  try {
    await action(config, logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    if (error instanceof ExitError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    logger.fatal({ err: error }, (error as Error).message);
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = EXIT.failed;
  }
};
