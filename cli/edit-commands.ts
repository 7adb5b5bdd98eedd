// `crm-sync edit`, `pause` and `resume`: changing a saved connection later. An edit is checked like a
// new connection (both sides' credentials tested) before it is saved; the schedules follow the new
// intervals. Pausing stops every schedule of a connection without losing them.
import { printResult } from './output.ts';
import { crmSecretsSet } from './crm-secrets.ts';
import type { Command } from 'commander';
import { ScheduleNotFoundError } from '@temporalio/client';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSettings } from '../sync/connection-settings.ts';
import { verifyConnection } from '../sync/verify-connection.ts';
import { storedRefreshTokenVault, unsavedSecretsVault, withNewestRefreshToken, explainSpentRefreshToken } from '../sync/refresh-token-handover.ts';
import { connectionScheduleIds } from '../temporal/sync-schedules.ts';
import { parseEntities, saveAndSchedule, savedSentence } from './connection-commands.ts';
import { openCommandContext } from './context.ts';
import { recordAudit } from './audit.ts';
import type { withConfigType } from './with-config.ts';
import { UsageError } from './exit-codes.ts';
import { duration, entityList, jsonObject, oneOf, wholeNumber } from './option-parsers.ts';
import { timelineEvents, timelineOpenTasks } from './timeline-options.ts';
import { InvalidArgumentError } from 'commander';
import { settingsFromFlags } from './usage-errors.ts';
import { ENTITIES, type Entity } from '../mappings/types.ts';

const STAGE_OWNERS = ['commerce', 'crm', 'latest'] as const;
/** What --cosell may set: the keys of the connection settings' co-sell object (read from its schema, so they stay in step). */
const COSELL_KEYS = Object.keys(connectionSettingsSchema.in.shape.cosell.unwrap().shape);

/** The flags as the command line's parsers give them; text (as a script or test passes it) also works. */
type EditOptions = {
  every?: string;
  realtimeEvery?: string;
  reconcileEvery?: string;
  entities?: string | Entity[];
  overrides?: string | Record<string, unknown>;
  pageSize?: string | number;
  lookbackSeconds?: string | number;
  writeBack?: boolean;
  startAfresh?: boolean;
  cosell?: string | Record<string, unknown>;
  cosellEvery?: string;
  stageOwner?: string;
  renewalLeadDays?: string | number;
  timelineEvents?: string | string[];
  timelineOpenTasks?: string | string[];
  timelineBackfillDays?: string | number;
};

/** A flag given as text (a script or test calling editedSettings) read by its option parser; a bad value names the flag. */
function parsedFlag<T>(flag: string, value: string | T, parse: (text: string) => T): T {
  if (typeof value !== 'string') return value;
  try {
    return parse(value);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new UsageError(`${flag}: ${error.message}`);
    throw error;
  }
}

/** A JSON flag's value: as parsed by its option parser, or text parsed here. */
function jsonFlag(flag: string, value: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UsageError(`${flag} is not JSON: ${(error as Error).message}`);
  }
}

/** The saved settings with the flags given applied; a bad value is a usage error naming its flag. */
export function editedSettings(current: unknown, options: EditOptions): ConnectionSettings {
  const settings = connectionSettingsSchema.parse(current);
  const overrides: unknown = options.overrides === undefined ? settings.overrides : jsonFlag('--overrides', options.overrides);
  let cosell: Record<string, unknown> = settings.cosell;
  if (options.cosell !== undefined) {
    const given = jsonFlag('--cosell', options.cosell);
    // Unknown keys would be dropped without a word by the settings schema: name them instead.
    const unknown = Object.keys(given).filter((key) => !COSELL_KEYS.includes(key));
    if (unknown.length) throw new UsageError(`--cosell: ${unknown.map((key) => JSON.stringify(key)).join(', ')} ${unknown.length > 1 ? 'are not co-sell settings' : 'is not a co-sell setting'}; use ${COSELL_KEYS.join(', ')}`);
    cosell = { ...cosell, ...given };
  }
  if (options.stageOwner !== undefined) cosell = { ...cosell, owners: { ...(cosell.owners as object), stage: options.stageOwner } };
  return settingsFromFlags({
    ...settings,
    entities: parseEntities(options.entities) ?? settings.entities,
    overrides,
    cosell,
    ...(options.renewalLeadDays !== undefined && { renewals: { ...settings.renewals, leadDays: Number(options.renewalLeadDays) } }),
    timeline: {
      ...settings.timeline,
      ...(options.timelineEvents !== undefined && { eventTypes: parsedFlag('--timeline-events', options.timelineEvents, timelineEvents) }),
      ...(options.timelineOpenTasks !== undefined && { openTasksFor: parsedFlag('--timeline-open-tasks', options.timelineOpenTasks, timelineOpenTasks) }),
      ...(options.timelineBackfillDays !== undefined && { backfillDays: Number(options.timelineBackfillDays) }),
    },
    schedule: {
      ...settings.schedule,
      ...(options.every && { every: options.every }),
      ...(options.realtimeEvery && { realtimeEvery: options.realtimeEvery }),
      ...(options.reconcileEvery && { reconcileEvery: options.reconcileEvery }),
      ...(options.cosellEvery && { cosellEvery: options.cosellEvery }),
      ...(options.pageSize !== undefined && { pageSize: Number(options.pageSize) }),
      ...(options.lookbackSeconds !== undefined && { lookbackSeconds: Number(options.lookbackSeconds) }),
    },
  });
}

export function registerEditCommands(program: Command, withConfig: withConfigType) {
  program
    .command('edit <connection>')
    .description('change a saved connection (tested again before saving); new secrets from COMMERCE_CLIENT_SECRET and the CRM\'s variables when set (SALESFORCE_CLIENT_SECRET, SALESFORCE_REFRESH_TOKEN; HUBSPOT_ACCESS_TOKEN, HUBSPOT_CLIENT_SECRET, HUBSPOT_REFRESH_TOKEN; DYNAMICS_CLIENT_SECRET)')
    .option('--every <interval>', 'incremental sync interval, e.g. 10m', duration)
    .option('--realtime-every <interval>', 'notification feed interval, e.g. 30s', duration)
    .option('--entities <list>', `entities to sync (${ENTITIES.join(',')})`, entityList)
    .option('--overrides <json>', 'mapping overrides as JSON (replaces the saved ones)', jsonObject('{"offer":{"disable":["Description"]}}'))
    .option('--page-size <n>', 'records per page (2 to 1000)', wholeNumber(2, 1000))
    .option('--lookback-seconds <n>', 'how far each incremental run looks back before its cursor', wholeNumber(0))
    .option('--reconcile-every <interval>', 'reconciliation pass interval, e.g. 24h', duration)
    .option('--cosell-every <interval>', 'co-sell pass interval (CRM to commerce, stages both ways), e.g. 1m', duration)
    .option('--stage-owner <owner>', 'who owns the co-sell stage: commerce, crm or latest (each side\'s own clock)', oneOf('a stage owner', STAGE_OWNERS))
    .option('--cosell <json>', 'co-sell settings as JSON, merged into the saved ones, e.g. {"enabled":false} or {"share":{"by":"stage","stages":["Negotiation/Review"]}} or {"stages":{"toCommerce":{"Value Proposition":"Qualified"}}}', jsonObject('{"enabled":false}'))
    .option('--renewal-lead-days <n>', 'how many days before an entitlement ends its renewal opportunity is made (default 90; the connection syncs renewal)', wholeNumber(1, 3650))
    .option('--timeline-events <types>', 'which marketplace events become activities on CRM records: default (every business event; audit-only never) or event types, comma-separated, e.g. OFFER,ENTITLEMENT:STATUS_CHANGED', timelineEvents)
    .option('--timeline-open-tasks <types>', 'which of them are open tasks (the rest completed activities): action-items (events marked as action items), none, or event types, comma-separated', timelineOpenTasks)
    .option('--timeline-backfill-days <n>', 'how many days of events a backfill writes to the timeline (1 to 3650; default 30)', wholeNumber(1, 3650))
    .option('--write-back', 'this connection writes CRM ids back to the commerce records (the others of its commerce organization stop)')
    .option('--no-write-back', 'this connection stops writing CRM ids back')
    .option('--start-afresh', 'when new secrets reach another Salesforce org: forget the record links, cursors and open dead letters')
    .addHelpText('after', '\nExamples:\n  crm-sync edit acme --every 10m --page-size 200\n  crm-sync edit acme --stage-owner crm --cosell \'{"enabled":true}\'\n  crm-sync edit acme --timeline-events OFFER,ENTITLEMENT:STATUS_CHANGED --timeline-open-tasks action-items --timeline-backfill-days 7\n  SALESFORCE_REFRESH_TOKEN=... crm-sync edit acme      save a new secret (tested first)')
    .action((name: string, options: EditOptions) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.connections.getWithSecrets((await context.findConnection(name)).id);
          const settings = editedSettings(found!.settings, options);
          // The saved secrets, with any this CRM kind's variables (or COMMERCE_CLIENT_SECRET) replace.
          const secrets = connectionSecretsSchema.parse({
            ...found!.secrets,
            ...(process.env.COMMERCE_CLIENT_SECRET && { commerceClientSecret: process.env.COMMERCE_CLIENT_SECRET }),
            ...crmSecretsSet(settings.crm.kind),
          });
          // The check signs in, which rotates a Salesforce refresh token: a saved one through the
          // connection's vault (workers may renew it meanwhile), a new one in memory, its newest saved.
          const newRefreshToken = secrets.crmRefreshToken !== found!.secrets.crmRefreshToken;
          const unsaved = newRefreshToken ? unsavedSecretsVault(secrets) : undefined;
          const checkAndSave = async () => {
            const verified = await verifyConnection(settings, secrets, { refreshTokens: unsaved ?? storedRefreshTokenVault(context.connections, found!.id) });
            const { summary } = await saveAndSchedule(context, config.temporal.taskQueue, {
              command: 'edit',
              name: found!.name,
              existing: found,
              settings,
              secrets: unsaved ? withNewestRefreshToken(secrets, unsaved) : secrets,
              keepStoredRefreshToken: !unsaved,
              crmOrganizationId: verified.crmOrganizationId,
              startAfresh: Boolean(options.startAfresh),
              writeBack: options.writeBack,
            });
            return { summary, verified };
          };
          const { summary, verified } = await checkAndSave().catch(async (error: unknown) => {
            if (!unsaved) throw error;
            throw await explainSpentRefreshToken(error, secrets.crmRefreshToken, unsaved, { connections: context.connections, id: found!.id, existed: true });
          });
          printResult({ ...summary, verified, settings }, savedSentence);
        } finally {
          await context.close();
        }
      })(),
    );

  for (const [command, pause] of [['pause', true], ['resume', false]] as const) {
    program
      .command(`${command} <connection>`)
      .description(pause ? "pause a connection's schedules (nothing runs until resume)" : "resume a paused connection's schedules")
      .addHelpText('after', pause ? '\nExamples:\n  crm-sync pause acme\n  crm-sync pause acme && crm-sync preview acme      look before it runs again' : '\nExamples:\n  crm-sync resume acme\n  crm-sync resume acme && crm-sync sync acme        and run now')
      .action((name: string) =>
        withConfig(async (config, logger) => {
          const context = await openCommandContext(config, logger);
          try {
            const found = await context.findConnection(name);
            const client = await context.temporalClient();
            const note = `${pause ? 'Paused' : 'Resumed'} with crm-sync ${command}`;
            for (const scheduleId of connectionScheduleIds(found.id)) {
              const handle = client.schedule.getHandle(scheduleId);
              try {
                await (pause ? handle.pause(note) : handle.unpause(note));
              } catch (error) {
                // A connection saved before the reconciliation schedule existed has none until connect or edit makes it.
                if (!(error instanceof ScheduleNotFoundError)) throw error;
              }
            }
            await recordAudit(context.database.pool, { action: command, connectionId: found.id });
            printResult({ connection: found.id, name: found.name, paused: pause }, () => `${note}: ${found.name}`);
          } finally {
            await context.close();
          }
        })(),
      );
  }
}
