// What revenue ops runs day to day: `connections` (health), `show`, `runs`, `errors`, `retry`, `mapping`
// and `doctor`. Each reads through ops/ (shared with the web console) and prints a table or sentences,
// or JSON with --json. Never a secret.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { createConnector } from '../crm/registry.ts';
import { storedRefreshTokenVault } from '../sync/refresh-token-handover.ts';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import type { MappingOverrides } from '../mappings/overrides.ts';
import { formatSeconds, readConnectionHealth, type ConnectionHealth } from '../ops/connection-health.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, openDeadLetters, type DeadLetterPage } from '../ops/dead-letter-view.ts';
import { runDoctor } from '../ops/doctor.ts';
import { schedulePause } from '../ops/schedule-pause.ts';
import { commerceQuotaText, liveCommerceQuotas } from '../ops/commerce-quota.ts';
import { checkMappingOverrides, MappingOverridesRefused, saveFlowOverrides, tidyOverrides } from '../ops/mapping-save.ts';
import { mappingInEffect, type MappingInEffect } from '../ops/mapping-view.ts';
import { retryDeadLetters } from '../ops/retry-dead-letters.ts';
import { CRM_FLOWS } from '../flows/index.ts';
import { runHistory, type RunView } from '../ops/run-history.ts';
import type { Connection } from '../store/connections.ts';
import { connectionSecretsSchema, connectionSettingsSchema, mappingOverridesSchema } from '../sync/connection-settings.ts';
import { parseEntities } from './connection-commands.ts';
import { openCommandContext, type CommandContext } from './context.ts';
import { cliActor, recordAudit } from './audit.ts';
import { EXIT, ExitError } from './exit-codes.ts';
import { colours, details, jsonOutput, printResult, table, when } from './output.ts';
import type { withConfigType } from './with-config.ts';
import { ALERT_LETTERS, idsText, letterEntity as letterEntityOption, listedLetterEntity, nonBlank, oneOf, SET_ASIDE_LETTERS, wholeNumber } from './option-parsers.ts';
import { settingsProblems } from './usage-errors.ts';

const STATUS_COLOUR: Record<string, (text: string) => string> = {
  healthy: colours.green,
  'never run': colours.dim,
  'dead letters': colours.yellow,
  behind: colours.yellow,
  paused: colours.yellow,
  failing: colours.red,
  'needs re-authorisation': colours.red,
};

const statusText = (status: string) => (STATUS_COLOUR[status] ?? String)(status);
const lagText = (health: ConnectionHealth) => (health.lagSeconds === null ? '-' : formatSeconds(health.lagSeconds));
const budgetText = (health: ConnectionHealth) => (health.apiBudget ? `${Math.round(health.apiBudget.share * 100)}% of ${health.apiBudget.limit}` : '-');
const lastRunText = (health: ConnectionHealth) => (health.lastRun ? `${health.lastRun.kind} ${health.lastRun.status} ${when(health.lastRun.finishedAt ?? health.lastRun.startedAt)}` : 'none');

/** The schedule's pause state, asked of Temporal (one client for all the connections shown). */
function scheduleState(context: CommandContext) {
  let client: Promise<Client> | undefined;
  return async (connectionId: string) => schedulePause(await (client ??= context.temporalClient()), connectionId);
}

/** Connections with their health, never their secrets: JSON keeps every saved setting beside it. */
async function connectionsWithHealth(context: CommandContext, only?: Connection) {
  const all = await context.connections.list();
  const health = await readConnectionHealth(context.database.pool, only ? all.filter((connection) => connection.id === only.id) : all, { scheduleState: scheduleState(context), all, commerceQuota: liveCommerceQuotas(context.connections) });
  return health.map((entry) => {
    const connection = all.find((candidate) => candidate.id === entry.id)!;
    const { id: _id, name: _name, crmKind: _kind, writesBack, needsReauthorisation: _mark, ...rest } = entry;
    return { ...connection, writesBack, health: rest };
  });
}

function withContext(withConfig: withConfigType, work: (context: CommandContext) => Promise<void>) {
  return withConfig(async (config, logger) => {
    const context = await openCommandContext(config, logger);
    try {
      await work(context);
    } finally {
      await context.close();
    }
  });
}

function printRuns(runs: RunView[]): string {
  if (runs.length === 0) return 'No runs yet.';
  return table(
    ['STARTED', 'KIND', 'STATUS', 'DURATION', 'READ', 'CREATED', 'UPDATED', 'UNCHANGED', 'FAILED'],
    runs.map((run) => [
      when(run.startedAt),
      run.kind,
      run.status === 'failed' ? colours.red(run.status) : run.status === 'running' ? colours.cyan(run.status) : run.status,
      run.seconds === null ? '-' : formatSeconds(run.seconds),
      run.counts.records,
      run.counts.created,
      run.counts.updated,
      run.counts.unchanged,
      run.counts.failed ? colours.red(String(run.counts.failed)) : 0,
    ]),
  );
}

const count = (n: number) => n.toLocaleString('en-US');

function printLetters(shown: DeadLetterPage, name: string, withPayload: boolean, next: string): string {
  if (shown.total === 0) return `No open dead letters for ${name}.`;
  if (shown.letters.length === 0) return `Page ${shown.page} is past the end: ${count(shown.total)} open, ${shown.pages} page${shown.pages === 1 ? '' : 's'} of ${shown.limit}.`;
  const blocks = shown.letters.map((letter) => {
    const lines = [
      `${colours.bold(`${letter.entity} ${letter.sourceId}`)}  ${colours.dim(`#${letter.id}`)}`,
      details([
        ['reason', letter.reason],
        ['CRM said', letter.crmError === undefined ? undefined : JSON.stringify(letter.crmError)],
        ['attempts', letter.attempts],
        ['first failed', when(letter.firstFailedAt)],
        ['next retry', letter.nextRetryAt ? when(letter.nextRetryAt) : 'by hand only (crm-sync retry)'],
      ]),
    ];
    if (withPayload && letter.payload !== undefined) lines.push(JSON.stringify(letter.payload, null, 2));
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n\n${pagingNote(shown, next)}. Retry them: crm-sync retry ${name} [--entity E] [--id ID]`;
}

/** "3 open", or "showing 51–100 of 100,000 open; --page 3 for more" when they span pages. */
function pagingNote(shown: DeadLetterPage, next: string): string {
  if (shown.first === 1 && shown.last === shown.total) return `${count(shown.total)} open`;
  const more = shown.page < shown.pages ? `; ${next} for more` : '';
  return `Showing ${count(shown.first)}–${count(shown.last)} of ${count(shown.total)} open${more}`;
}

function printMapping(view: MappingInEffect, name: string): string {
  const parts: string[] = [];
  for (const entity of view.commerceToCrm) {
    parts.push(`${colours.bold(`${entity.entity} -> ${entity.object}`)}  key ${entity.key}${entity.synced ? '' : colours.dim('  (not synced by this connection)')}`);
    parts.push(table(['CRM FIELD', 'FROM'], entity.fields.map((field) => [field.field, `${field.from}${field.renamedFrom ? colours.dim(` (renamed from ${field.renamedFrom})`) : ''}${field.createOnly ? colours.dim(' (on create only)') : ''}`])));
    if (entity.disabled.length) parts.push(colours.dim(`not written: ${entity.disabled.join(', ')}`));
    for (const [field, values] of Object.entries(entity.picklists)) parts.push(colours.dim(`${field}: ${Object.entries(values).map(([from, to]) => `${from} -> ${to}`).join(', ')}`));
    parts.push('');
  }
  for (const flow of view.crmToCommerce) {
    parts.push(`${colours.bold(`${flow.object} -> commerce (${flow.flow})`)}${flow.enabled ? '' : colours.dim('  (co-sell off)')}`);
    parts.push(`  reads ${flow.reads.join(', ')}; the commerce id goes back into ${flow.commerceIdField}`);
  }
  parts.push('');
  parts.push(`Co-sell ${view.cosell.enabled ? 'on' : 'off'}; the stage is owned by ${view.cosell.stageOwner === 'latest' ? 'the side that changed it last' : `the ${view.cosell.stageOwner} side`}; shared when ${JSON.stringify(view.cosell.share)}`);
  parts.push(colours.dim(`Overrides: ${JSON.stringify(view.overrides)}  (replace them: crm-sync mapping ${name} --edit FILE)`));
  return parts.join('\n');
}

/** Which letters --entity names: an entity, feed events set aside (notification), or a co-sell flow's refused write-backs. */
function letterEntity(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value === SET_ASIDE_LETTERS || value === ALERT_LETTERS || value in CRM_FLOWS) return value;
  return parseEntities(value, '--entity')?.[0];
}

/** As the option parsers give them (option-parsers.ts checked each value while the command line was read). */
type ErrorsOptions = { entity?: string; id?: string; payload?: boolean; limit?: number; page?: number; search?: string; order?: (typeof ORDERS)[number] };

const ORDERS = ['newest', 'next-retry'] as const;

/**
 * One page of open letters (newest first, 50 by default), counted apart: a connection with 100,000
 * letters prints 50 and says how to see more. Under --json, stdout holds the page's letters (an
 * array, as before paging) and the "showing ... of ..." line goes to stderr.
 */
export const errorsAction = (withConfig: withConfigType, connection: string, options: ErrorsOptions) =>
  withContext(withConfig, async (context) => {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const page = options.page ?? 1;
    const found = await context.findConnection(connection);
    const entity = letterEntity(options.entity);
    const sourceIds = options.id?.split(',').map((id) => id.trim()).filter(Boolean);
    const shown = await openDeadLetters(context.database.pool, found.id, { entity, sourceIds, search: options.search, order: options.order, limit, page, withPayload: options.payload });
    const next = `--page ${shown.page + 1}`;
    if (jsonOutput() && shown.total > shown.letters.length) process.stderr.write(`${pagingNote(shown, next)}.\n`);
    printResult(shown.letters, () => printLetters(shown, found.name, Boolean(options.payload), next));
  });

export const retryAction = (withConfig: withConfigType, connection: string, options: { entity?: string; id?: string }) =>
  withContext(withConfig, async (context) => {
    const found = await context.findConnection(connection);
    const entity = letterEntity(options.entity);
    const sourceIds = options.id?.split(',').map((id) => id.trim()).filter(Boolean);
    const outcome = await retryDeadLetters(context.database.pool, () => context.temporalClient(), found, { entity, sourceIds });
    // A retry that found no letter changed nothing, so it is not an audit event.
    if (outcome.due > 0) {
      const target = [entity, sourceIds?.join(',')].filter(Boolean).join(' ') || undefined;
      await recordAudit(context.database.pool, { action: 'retry', connectionId: found.id, target, detail: { due: outcome.due, hadUsedAllAttempts: outcome.hadUsedAllAttempts, syncStarted: outcome.syncStarted } });
    }
    printResult(outcome, (result) => result.message);
  });

export function registerOperationsCommands(program: Command, withConfig: withConfigType) {
  program
    .command('connections')
    .description('list connections with their health: CRM, last run, lag, open dead letters, API budget, commerce quota, paused or needing re-authorisation')
    .addHelpText('after', '\nExamples:\n  crm-sync connections\n  crm-sync connections --json | jq \'.[] | {name, status: .health.status}\'')
    .action(() =>
      withContext(withConfig, async (context) => {
        const listed = await connectionsWithHealth(context);
        printResult(listed, (rows) =>
          rows.length === 0
            ? 'No connections yet. Wire one: crm-sync connect --help'
            : table(
                ['NAME', 'CRM', 'STATUS', 'LAST RUN', 'LAG', 'DEAD LETTERS', 'API BUDGET', 'COMMERCE QUOTA', 'WRITES BACK'],
                rows.map((row) => [row.name, row.health.crm, statusText(row.health.status), lastRunText(row.health as ConnectionHealth), lagText(row.health as ConnectionHealth), row.health.openDeadLetters, budgetText(row.health as ConnectionHealth), commerceQuotaText(row.health.commerceQuota), row.writesBack ? 'yes' : 'no']),
              ) + `\n${rows.filter((row) => row.health.status !== 'healthy').map((row) => `${row.name}: ${row.health.summary}`).join('\n')}`,
        );
      })(),
    );

  program
    .command('show <connection>')
    .description('one connection in full: settings, health, schedules, the last runs (never a secret)')
    .addHelpText('after', '\nExamples:\n  crm-sync show acme\n  crm-sync show acme --json | jq .health')
    .action((connection: string) =>
      withContext(withConfig, async (context) => {
        const found = await context.findConnection(connection);
        const [entry] = await connectionsWithHealth(context, found);
        const runs = await runHistory(context.database.pool, found.id, 5);
        const settings = connectionSettingsSchema.parse(found.settings);
        printResult({ ...entry!, runs }, (shown) =>
          [
            colours.bold(`${shown.name} (${shown.health.crm})`),
            details([
              ['status', `${statusText(shown.health.status)}: ${shown.health.summary}`],
              ['id', shown.id],
              ['commerce', `${settings.commerce.baseUrl} organization ${settings.commerce.organizationId} (client ${settings.commerce.clientId})`],
              ['crm', JSON.stringify(settings.crm)],
              ['entities', settings.entities.join(', ')],
              ['schedule', `every ${settings.schedule.every}; notifications every ${settings.schedule.realtimeEvery}; reconcile every ${settings.schedule.reconcileEvery}; co-sell every ${settings.schedule.cosellEvery}`],
              ['paused', shown.health.paused === null ? 'unknown (Temporal not reachable)' : shown.health.paused ? 'yes' : 'no'],
              ['writes back', shown.writesBack ? 'yes' : 'no'],
              ['CRM current as of', when(shown.health.crmCurrentAsOf)],
              ['lag', lagText(shown.health as ConnectionHealth)],
              ['dead letters', shown.health.openDeadLetters],
              ['API budget', budgetText(shown.health as ConnectionHealth)],
              ['commerce quota', commerceQuotaText(shown.health.commerceQuota)],
              ['co-sell', `${settings.cosell.enabled ? 'on' : 'off'}, stage owner ${settings.cosell.owners.stage}`],
            ]),
            '',
            printRuns(shown.runs),
          ].join('\n'),
        );
      })(),
    );

  program
    .command('runs <connection>')
    .description('the history of a connection\'s runs: kind, outcome, duration and counts')
    .option('-n, --limit <n>', 'how many runs (1 or more)', wholeNumber(1), 20)
    .option('--entities', 'the counts of each entity under each run')
    .addHelpText('after', '\nExamples:\n  crm-sync runs acme\n  crm-sync runs acme -n 5 --entities')
    .action((connection: string, options: { limit: number; entities?: boolean }) =>
      withContext(withConfig, async (context) => {
        const found = await context.findConnection(connection);
        const runs = await runHistory(context.database.pool, found.id, options.limit);
        printResult(runs, (shown) => {
          if (!options.entities) return printRuns(shown);
          return shown
            .map((run) => `${printRuns([run])}\n${Object.keys(run.entities).length ? table(['  ENTITY', 'READ', 'CREATED', 'UPDATED', 'UNCHANGED', 'FAILED'], Object.entries(run.entities).map(([entity, c]) => [`  ${entity}`, c.records, c.created, c.updated, c.unchanged, c.failed])) : ''}`)
            .join('\n\n');
        });
      })(),
    );

  program
    .command('errors <connection>')
    .description("records waiting as dead letters, with the CRM's or the commerce side's own message; newest first, a page at a time")
    .option('--entity <entity>', `only this entity (${ENTITIES.join(', ')}), notification (feed events set aside) or alert (alerts not delivered)`, listedLetterEntity)
    .option('--id <ids>', 'only these commerce record ids (comma-separated)', idsText)
    .option('--search <text>', 'only letters whose reason or record id contains this text (any case)', nonBlank)
    .option('--order <order>', 'newest (the last failure first; the default) or next-retry (the soonest retry first)', oneOf('an order', ORDERS))
    .option('-n, --limit <n>', `letters per page, 1 to ${MAX_PAGE_SIZE}`, wholeNumber(1, MAX_PAGE_SIZE), DEFAULT_PAGE_SIZE)
    .option('--page <n>', 'which page, from 1', wholeNumber(1), 1)
    .option('--payload', 'show the mapped payload of each record shown too')
    .addHelpText('after', '\nExamples:\n  crm-sync errors acme\n  crm-sync errors acme --page 2\n  crm-sync errors acme --entity offer --search "required field" -n 10 --payload\n  crm-sync errors acme --order next-retry\n  crm-sync errors acme --entity alert      alerts that could not be delivered, with the service\'s answer')
    .action((connection: string, options: ErrorsOptions) => errorsAction(withConfig, connection, options)());

  program
    .command('retry <connection>')
    .description('give dead letters fresh attempts now and start the sync that retries them')
    .option('--entity <entity>', `only this entity (${ENTITIES.join(', ')}, or notification)`, letterEntityOption)
    .option('--id <ids>', 'only these commerce record ids (comma-separated)', idsText)
    .addHelpText('after', '\nExamples:\n  crm-sync retry acme\n  crm-sync retry acme --entity offer --id offer-123')
    .action((connection: string, options: { entity?: string; id?: string }) => retryAction(withConfig, connection, options)());

  program
    .command('mapping <connection>')
    .description('print the mapping in effect (defaults and overrides, per entity and direction, with the co-sell conflict policy); --edit FILE replaces the overrides after checking them against the CRM')
    .option('--edit <file>', 'a JSON file of overrides, e.g. {"offer":{"rename":{"Marketplace__c":"Cloud__c"},"disable":["Description"]}}', nonBlank)
    .addHelpText('after', '\nExamples:\n  crm-sync mapping acme\n  crm-sync mapping acme --edit overrides.json')
    .action((connection: string, options: { edit?: string }) =>
      withContext(withConfig, async (context) => {
        const found = await context.findConnection(connection);
        let settings = connectionSettingsSchema.parse(found.settings);
        if (options.edit) {
          const overrides = readOverridesFile(options.edit);
          const stored = await context.connections.getWithSecrets(found.id);
          const connector = createConnector(settings, connectionSecretsSchema.parse(stored!.secrets), { refreshTokens: storedRefreshTokenVault(context.connections, found.id) });
          let candidate;
          try {
            // The same check as the console's mapping page (ops/mapping-save.ts).
            candidate = await checkMappingOverrides(connector, found.settings, overrides);
          } catch (error) {
            if (error instanceof MappingOverridesRefused) throw new ExitError(`The overrides in ${options.edit} do not fit the CRM; nothing was saved:\n- ${error.problems.join('\n- ')}`, EXIT.attention);
            throw error;
          }
          // Each flow that changed is saved as the console saves it (ops/mapping-save.ts): a new version
          // of that flow's mapping, so the console's version list and rollback match what is in effect,
          // and its audit event (recorded there, with the version, so nothing here records it twice).
          const deps = { pool: context.database.pool, connections: context.connections, crm: connector };
          let current = found;
          for (const flow of changedFlows(settings.overrides, overrides)) {
            await saveFlowOverrides(deps, { connection: current, flow, overrides: overrides[flow] ?? {}, actor: cliActor(), via: 'cli' });
            current = (await context.connections.get(found.id)) ?? current;
          }
          settings = candidate;
          process.stderr.write(`Saved the overrides of ${found.name} from ${options.edit}; the next sync writes with them (records already written change when their source changes, or with crm-sync backfill ${found.name} --forget-links).\n`);
        }
        printResult(mappingInEffect(settings), (view) => printMapping(view, found.name));
      })(),
    );

  program
    .command('doctor')
    .description('check Temporal, PostgreSQL, every connection\'s credentials, its CRM schema against the mappings, its schedules and API budget; one line each, with what to do')
    .addHelpText('after', `\nExit code ${EXIT.attention} when something needs attention.\n\nExamples:\n  crm-sync doctor\n  crm-sync doctor --json | jq '.checks[] | select(.ok | not)'`)
    .action(() =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const report = await runDoctor({ pool: context.database.pool, connections: context.connections, temporal: () => context.temporalClient(), taskQueue: config.temporal.taskQueue });
          printResult(report, ({ checks, ok }) =>
            [
              ...checks.map((check) => `${check.ok ? colours.green('ok ') : colours.red('!! ')} ${check.check}: ${check.message}${check.fix ? `\n    ${colours.cyan('->')} ${check.fix}` : ''}`),
              '',
              ok ? 'Everything checked is working.' : `${checks.filter((check) => !check.ok).length} thing(s) need attention.`,
            ].join('\n'),
          );
          if (!report.ok) process.exitCode = EXIT.attention;
        } finally {
          await context.close();
        }
      })(),
    );
}

/** The flows whose overrides differ between the saved ones and the file's (a flow left out of the file loses its overrides). */
function changedFlows(saved: MappingOverrides, edited: MappingOverrides): Entity[] {
  const flows = [...new Set([...Object.keys(saved), ...Object.keys(edited)])] as Entity[];
  return flows.filter((flow) => !isDeepStrictEqual(tidyOverrides(saved[flow] ?? {}), tidyOverrides(edited[flow] ?? {})));
}

/** The overrides file, parsed and shaped, or an error naming the file and what is wrong in it. */
function readOverridesFile(file: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ExitError(`--edit: cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ExitError(`--edit: ${file} is not JSON: ${(error as Error).message}`, EXIT.usage);
  }
  const shaped = mappingOverridesSchema.safeParse(parsed);
  // One line per problem, each naming the flag, the file and where in it.
  if (!shaped.success) throw new ExitError(settingsProblems(shaped.error, {}).split('\n').map((line) => `--edit (${file}) ${line}`).join('\n'), EXIT.usage);
  return shaped.data;
}
