// `crm-sync temporal-server`: finds or builds the Temporal server and its SQL schema tool and prints their
// paths; with --run, sets up its schema on a PostgreSQL and runs it (single node) until SIGINT or SIGTERM.
import path from 'node:path';
import type { Command } from 'commander';
import { findTemporalServer } from '../infra/temporal-server-binary.ts';
import { startTemporalServer } from '../infra/temporal-server.ts';
import { UsageError } from './exit-codes.ts';
import { port, wholeNumber } from './option-parsers.ts';
import { printResult } from './output.ts';
import type { withConfigType } from './with-config.ts';

type Options = { run?: boolean; databaseUrl?: string; port: number; historyShards: number };

export function registerTemporalServerCommand(program: Command, withConfig: withConfigType) {
  program
    .command('temporal-server')
    .description('find the Temporal server and its SQL schema tool (TEMPORAL_SERVER_PATH, per-user cache) or build them with go install, and print their paths; --run runs one on PostgreSQL')
    .option('--run', 'set up the schema and run a single-node Temporal server until Ctrl-C')
    .option('--database-url <url>', 'with --run: a PostgreSQL URL whose user may create databases (else TEMPORAL_DATABASE_URL; the environment keeps the password out of process lists)')
    .option('--port <port>', 'with --run: the frontend port (TEMPORAL_ADDRESS=127.0.0.1:<port>)', port, 7233)
    .option('--history-shards <n>', 'with --run: history shards, fixed when the databases are first set up', wholeNumber(1, 16_384), 4)
    .addHelpText(
      'after',
      '\nExamples:\n  crm-sync temporal-server\n  TEMPORAL_DATABASE_URL=postgres://temporal:...@db:5432/postgres crm-sync temporal-server --run\n  TEMPORAL_ADDRESS=127.0.0.1:7233 DATABASE_URL=... crm-sync worker     a worker on it',
    )
    .action((options: Options) =>
      withConfig(async (config, logger) => {
        if (!options.run) {
          const found = await findTemporalServer({ onProgress: (message) => logger.info(message) });
          if (!found) throw new Error('No Temporal server could be found or built (see the messages above)');
          printResult({ server: found.server, sqlTool: found.sqlTool, version: found.version }, (result) => `${result.server}\n${result.sqlTool}`);
          return;
        }
        const databaseUrl = options.databaseUrl ?? process.env.TEMPORAL_DATABASE_URL;
        if (!databaseUrl) throw new UsageError('--run needs a PostgreSQL: set TEMPORAL_DATABASE_URL or give --database-url');
        const server = await startTemporalServer({
          databaseUrl,
          dataDir: path.join(config.dataDir, 'temporal-server'),
          logger,
          port: options.port || undefined,
          historyShards: options.historyShards,
        });
        printResult({ address: server.address, version: server.version, ...server.databases }, (result) => `Temporal server ${result.version ?? ''} on ${result.address} (databases ${result.database} and ${result.visibilityDatabase}); Ctrl-C stops it`);
        const signal = await new Promise<NodeJS.Signals>((resolve) => {
          const onSignal = (received: NodeJS.Signals) => {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            resolve(received);
          };
          process.on('SIGINT', onSignal);
          process.on('SIGTERM', onSignal);
        });
        logger.info(`${signal} received: stopping the Temporal server`);
        await server.stop();
      })(),
    );
}
