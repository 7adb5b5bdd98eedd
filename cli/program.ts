// The `crm-sync` command. Each subcommand loads the configuration itself, so `--help` works anywhere.
import { Command } from 'commander';
import { findTemporalCli } from '../infra/temporal-cli.ts';
import { openDatabase } from '../store/database.ts';
import { createHeartbeatStore } from '../store/heartbeats.ts';
import { startCommand } from './start.ts';
import { workerCommand } from './worker-command.ts';
import { schedulesCommand } from './schedules-command.ts';
import { withConfig } from './with-config.ts';
import { registerConnectionCommands } from './connection-commands.ts';
import { registerSyncCommands } from './sync-commands.ts';
import { registerEditCommands } from './edit-commands.ts';
import { sandboxCommand } from './sandbox-command.ts';
import { registerSetupCommand } from './setup-command.ts';
import { registerOperationsCommands } from './operations-commands.ts';
import { registerAuditCommand } from './audit-command.ts';
import { registerAlertsCommand } from './alerts-command.ts';
import { registerTemporalServerCommand } from './temporal-server-command.ts';
import { jsonWanted, printResult, reportError, setJsonOutput, table, when } from './output.ts';
import { atLeast, listenAddress, port, wholeNumber } from './option-parsers.ts';
import { commanderErrorLine } from './usage-errors.ts';
import { EXIT } from './exit-codes.ts';

export function buildProgram(): Command {
  const program = new Command('crm-sync')
    .description('Keeps a CRM (Salesforce, HubSpot, Dynamics 365) in step with the Marketplace Commerce Service')
    // A wrong command line (unknown option, missing argument, a value its flag does not take) exits 2
    // with one line naming the flag, as the README's exit codes say; under --json also {"error": ...}
    // on stdout. Set before the commands are added, so each inherits both.
    .configureOutput({ outputError: (text) => reportError(commanderErrorLine(text), jsonWanted()) })
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT.usage));

  program
    .command('start')
    .description('run everything: PostgreSQL (embedded unless DATABASE_URL), Temporal (local dev server unless TEMPORAL_ADDRESS), schedules and the worker')
    .addHelpText('after', '\nExamples:\n  npm start                                     the same, from the checkout\n  DATABASE_URL=postgres://... crm-sync start    your own PostgreSQL, a local Temporal')
    .action(withConfig(startCommand));

  program
    .command('worker')
    .description('run one more worker against an existing Temporal cluster and database (TEMPORAL_ADDRESS and DATABASE_URL)')
    .addHelpText('after', '\nExamples:\n  TEMPORAL_ADDRESS=temporal:7233 DATABASE_URL=postgres://... CRM_SYNC_SECRET_KEY=... crm-sync worker\n  CRM_SYNC_MAX_CONCURRENT_ACTIVITIES=16 crm-sync worker      more activities at once on a bigger host')
    .action(withConfig(workerCommand));

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .addHelpText('after', '\nExamples:\n  crm-sync migrate                               the embedded PostgreSQL under .data\n  DATABASE_URL=postgres://... crm-sync migrate   your own, before rolling out a new version')
    .action(
      withConfig(async (config, logger) => {
        const database = await openDatabase(config, logger);
        await database.close();
        logger.info('Database schema is up to date');
      }),
    );

  program
    .command('schedules')
    .description('create or update the heartbeat schedule and every connection\'s sync schedules on Temporal, then exit (what `start` does before its worker runs; a cluster\'s setup job runs it after migrate)')
    .addHelpText('after', '\nExamples:\n  TEMPORAL_ADDRESS=temporal:7233 DATABASE_URL=postgres://... CRM_SYNC_SECRET_KEY=... crm-sync schedules\n  crm-sync schedules --json      {"heartbeat":"updated","connections":["acme"]}')
    .action(
      withConfig(async (config, logger) => {
        const outcome = await schedulesCommand(config, logger);
        printResult(outcome, ({ heartbeat, connections }) => `Heartbeat schedule ${heartbeat}; ${connections.length} connection${connections.length === 1 ? '' : 's'} scheduled${connections.length ? `: ${connections.join(', ')}` : ''}`);
      }),
    );

  program
    .command('heartbeats')
    .description('show the latest heartbeat rows written by the scheduled heartbeat workflow')
    .option('-n, --limit <n>', 'how many rows (1 or more)', wholeNumber(1), 10)
    .addHelpText('after', '\nExamples:\n  crm-sync heartbeats\n  crm-sync heartbeats -n 3 --json')
    .action((options: { limit: number }) =>
      withConfig(async (config, logger) => {
        const database = await openDatabase(config, logger);
        try {
          const store = createHeartbeatStore(database.pool);
          const rows = await store.latest(options.limit);
          printResult({ total: await store.count(), latest: rows }, ({ total, latest }) =>
            latest.length ? `${table(Object.keys(latest[0]!).map((key) => key.toUpperCase()), latest.map((row) => Object.values(row).map((value) => (value instanceof Date ? when(value) : String(value)))))}\n${total} in all` : 'No heartbeats yet: the heartbeat schedule writes one every interval while a worker runs',
          );
        } finally {
          await database.close();
        }
      })(),
    );

  program
    .command('temporal-cli')
    .description('find the Temporal CLI (TEMPORAL_CLI_PATH, PATH, per-user cache) or build it with go install, and print its path')
    .addHelpText('after', '\nExamples:\n  crm-sync temporal-cli\n  "$(crm-sync temporal-cli)" workflow list --address 127.0.0.1:7233')
    .action(
      withConfig(async (config, logger) => {
        const cli = await findTemporalCli({
          explicitPath: config.temporal.cliPath,
          onProgress: (message) => logger.info(message),
        });
        if (!cli) throw new Error('No Temporal CLI could be found or built (see the messages above)');
        printResult({ path: cli.path }, ({ path }) => path);
      }),
    );

  program
    .command('sandbox')
    .description('start the local sandboxes (commerce API; CRMs as they land) on loopback; the first stdout line is a JSON object with their URLs and credentials')
    .option('--host <host>', 'loopback address to listen on', listenAddress, '127.0.0.1')
    .option('--commerce-port <port>', 'commerce API port (0: any free port)', port, 0)
    .option('--commerce-auth-port <port>', 'commerce token endpoint port (0: any free port)', port, 0)
    .option('--salesforce-port <port>', 'Salesforce sandbox port (0: any free port)', port, 0)
    .option('--seed <n>', 'seed of the generated data (a whole number)', wholeNumber(0), 1)
    .option('--entitlements <n>', 'how many entitlements to generate', wholeNumber(0), 200)
    .option('--changes-per-second <n>', 'rate of the change driver (0: off)', atLeast(0), 0)
    .addHelpText('after', '\nExamples:\n  crm-sync sandbox\n  crm-sync sandbox --seed 7 --entitlements 1000 --changes-per-second 5')
    .action((options) =>
      sandboxCommand({
        host: options.host,
        commercePort: options.commercePort,
        commerceAuthPort: options.commerceAuthPort,
        salesforcePort: options.salesforcePort,
        seed: options.seed,
        entitlements: options.entitlements,
        changesPerSecond: options.changesPerSecond,
      }),
    );

  registerConnectionCommands(program, withConfig);
  registerEditCommands(program, withConfig);
  registerSetupCommand(program, withConfig);
  registerSyncCommands(program, withConfig);
  registerOperationsCommands(program, withConfig);
  registerAuditCommand(program, withConfig);
  registerAlertsCommand(program, withConfig);
  registerTemporalServerCommand(program, withConfig);
  // Every command answers in JSON with --json (tables and sentences otherwise); but start and worker,
  // which run until stopped and only log (LOG_FORMAT says how), have no answer to give as JSON.
  const RUN_UNTIL_STOPPED = ['start', 'worker'];
  for (const command of program.commands) {
    if (RUN_UNTIL_STOPPED.includes(command.name())) continue;
    if (!command.options.some((option) => option.long === '--json')) command.option('--json', 'print JSON (for scripts) instead of tables and sentences');
  }
  program.hook('preAction', (_program, action) => setJsonOutput(action.opts().json as boolean | undefined));
  program.addHelpText(
    'after',
    `
Examples:
  npm start                                  everything locally (sandboxes, PostgreSQL, Temporal, the worker)
  crm-sync connections                       each connection's health
  crm-sync errors acme                       why records failed, in the CRM's words
  crm-sync retry acme --entity offer         retry them after a fix
  crm-sync backfill acme --entities offer    a backfill with a live progress bar (Ctrl-C leaves it running)
  crm-sync doctor                            what is wrong and what to do
  crm-sync audit --since 7d                  who changed what this week (console, API and CLI)

Exit codes: ${EXIT.ok} done; ${EXIT.failed} failed; ${EXIT.usage} wrong command line or configuration (one line names the flag or variable);
${EXIT.notFound} no such connection; ${EXIT.attention} done, but something needs attention (doctor, setup, mapping checks, a backfill
with failed records); ${EXIT.unreachable} Temporal or PostgreSQL unreachable.
Output: tables for a person; --json (or CRM_SYNC_OUTPUT=json) for scripts: one JSON line, {"error": "..."} on a failure.`,
  );
  return program;
}
