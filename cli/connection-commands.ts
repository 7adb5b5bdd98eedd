// `crm-sync connect`, `connections` and `dead-letters`: wiring a CRM account to a commerce organization.
// Secrets come from the environment (never from flags, which other users can read in the process list).
import type { Command } from 'commander';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import type { Connection } from '../store/connections.ts';
import { createDeadLetterStore, MAX_DEAD_LETTER_ATTEMPTS } from '../store/dead-letters.ts';
import { redactSecrets, redactText } from '../store/redact.ts';
import { forgetSyncState, type ForgottenSyncState } from '../store/sync-state.ts';
import { withTransaction } from '../store/transaction.ts';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSecrets, type ConnectionSettings } from '../sync/connection-settings.ts';
import { organizationChanges, OrganizationChangedError, verifyConnection } from '../sync/verify-connection.ts';
import { otherWriters, writesBack } from '../sync/write-back-owner.ts';
import { ensureConnectionSchedules, syncScheduleId, triggerSync } from '../temporal/sync-schedules.ts';
import { openCommandContext, type CommandContext } from './context.ts';
import type { withConfigType } from './with-config.ts';

export function parseEntities(value: string | undefined): Entity[] | undefined {
  if (!value) return undefined;
  const entities = value.split(',').map((entity) => entity.trim()).filter(Boolean);
  const unknown = entities.filter((entity) => !ENTITIES.includes(entity as Entity));
  if (unknown.length) throw new Error(`Unknown entit${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}: choose from ${ENTITIES.join(', ')}`);
  return entities as Entity[];
}

export type SaveRequest = {
  command: 'connect' | 'edit';
  name: string;
  existing?: Connection;
  settings: ConnectionSettings;
  secrets: ConnectionSecrets;
  /** What verifyConnection found: the Salesforce org the credentials reach. */
  crmOrganizationId?: string;
  startAfresh: boolean;
  /** --write-back (true), --no-write-back (false), or neither. */
  writeBack?: boolean;
};

export type SaveOutcome = { saved: Connection; writesBack: boolean; startedAfresh?: ForgottenSyncState; notes: string[] };

/**
 * Saves a tested connection (connect and edit). Refuses, changing nothing, when a side now reaches
 * another organization than the one it was saved with, unless the user starts afresh: then the
 * connection's record links, cursors and open dead letters go in the transaction that saves it.
 * Decides which connection writes CRM ids back (one per commerce organization and CRM kind).
 */
export async function saveConnection(context: CommandContext, request: SaveRequest): Promise<SaveOutcome> {
  const { existing, settings } = request;
  const changes = existing ? organizationChanges(existing.settings, settings, request.crmOrganizationId) : [];
  if (changes.length > 0 && !request.startAfresh) throw new OrganizationChangedError(request.name, changes, request.command);
  const notes: string[] = [];
  const savedCrm = (existing?.settings as { crm?: { organizationId?: string } } | undefined)?.crm?.organizationId;
  settings.crm.organizationId = request.crmOrganizationId ?? (changes.length ? undefined : savedCrm);
  if (existing && !savedCrm && request.crmOrganizationId) notes.push(`Saved the Salesforce org id ${request.crmOrganizationId} these credentials reach (none was saved before).`);

  const all = await context.connections.list();
  const self = { id: existing?.id ?? '', name: request.name, crmKind: 'salesforce' as const, settings };
  const commerceMoved = changes.some((change) => change.side === 'commerce');
  const savedFlag = (existing?.settings as { writeBack?: unknown } | undefined)?.writeBack;
  if (request.writeBack !== undefined) settings.writeBack = request.writeBack;
  else if (typeof savedFlag === 'boolean' && !commerceMoved) settings.writeBack = savedFlag;
  else settings.writeBack = otherWriters(self, all).length === 0;

  const { saved, forgotten, gaveUp } = await withTransaction(context.database.pool, async (tx) => {
    const saved = existing
      ? await context.connections.update(existing.id, { settings, secrets: request.secrets }, tx)
      : await context.connections.create({ name: request.name, crmKind: 'salesforce', settings, secrets: request.secrets }, tx);
    const forgotten = changes.length ? await forgetSyncState(tx, saved.id) : undefined;
    // Claimed under a lock, so at most one connection of the commerce organization writes back.
    const gaveUp = settings.writeBack ? await context.connections.setWriteBack(saved.id, true, tx) : [];
    return { saved, forgotten, gaveUp };
  });

  if (forgotten) {
    notes.push(
      `Started afresh with ${changes.map((change) => `${change.side === 'crm' ? 'Salesforce org' : 'commerce organization'} ${change.now} (was ${change.saved})`).join(' and ')}: ` +
        `forgot ${forgotten.recordLinks} record link(s), ${forgotten.cursors} cursor(s) and ${forgotten.openDeadLetters} open dead letter(s); the next sync writes every record again.`,
    );
  }
  if (request.startAfresh && !forgotten && existing) notes.push(`--start-afresh had nothing to do: both sides still reach the organizations ${saved.name} was saved with, so its record links and cursors were kept.`);
  const commerceOrg = `commerce organization ${settings.commerce.organizationId} at ${settings.commerce.baseUrl}`;
  if (gaveUp.length) notes.push(`${saved.name} now writes CRM ids back to ${commerceOrg}; ${gaveUp.map((other) => other.name).join(', ')} no longer do(es).`);
  if (!settings.writeBack) {
    const writers = otherWriters(saved, await context.connections.list());
    notes.push(
      writers.length
        ? `${saved.name} does not write CRM ids back to ${commerceOrg}: ${writers.map((writer) => writer.name).join(', ')} does (one connection per commerce organization and CRM kind writes back, so two orgs never overwrite each other's ids). To move it here: crm-sync edit ${saved.name} --write-back`
        : `No connection writes CRM ids back to ${commerceOrg}. To make ${saved.name} do it: crm-sync edit ${saved.name} --write-back`,
    );
  }
  return { saved, writesBack: settings.writeBack, startedAfresh: forgotten, notes };
}

/** Notes for the person at the terminal; the JSON result on stdout carries them too. */
export function printNotes(notes: string[]): void {
  for (const note of notes) process.stderr.write(`${note}\n`);
}

/** Saves (connect, edit), makes the schedules follow the saved intervals and tells the person what happened. */
export async function saveAndSchedule(context: CommandContext, taskQueue: string, request: SaveRequest) {
  const outcome = await saveConnection(context, request);
  const { schedule: intervals } = request.settings;
  const schedule = await ensureConnectionSchedules(await context.temporalClient(), {
    connectionId: outcome.saved.id,
    every: intervals.every,
    realtimeEvery: intervals.realtimeEvery,
    reconcileEvery: intervals.reconcileEvery,
    cosellEvery: intervals.cosellEvery,
    taskQueue,
  });
  printNotes(outcome.notes);
  return { ...outcome, schedule, summary: { connection: outcome.saved.id, name: outcome.saved.name, schedule, writesBack: outcome.writesBack, startedAfresh: outcome.startedAfresh, notes: outcome.notes } };
}

export function registerConnectionCommands(program: Command, withConfig: withConfigType) {
  program
    .command('connect')
    .description('create (or update) a connection after testing both sides; secrets from COMMERCE_CLIENT_SECRET, SALESFORCE_CLIENT_SECRET [, SALESFORCE_REFRESH_TOKEN]')
    .requiredOption('--name <name>', 'a name for the connection')
    .requiredOption('--commerce-url <url>', 'commerce API base URL')
    .requiredOption('--commerce-auth-url <url>', 'commerce token host')
    .requiredOption('--commerce-client-id <id>', 'commerce OAuth client id')
    .requiredOption('--commerce-org <orgId>', 'commerce organization id')
    .requiredOption('--salesforce-login-url <url>', 'Salesforce login URL (https://login.salesforce.com or My Domain)')
    .requiredOption('--salesforce-client-id <id>', 'Salesforce connected app consumer key')
    .option('--entities <list>', `entities to sync (${ENTITIES.join(',')})`)
    .option('--every <interval>', 'sync interval, e.g. 5m', '5m')
    .option('--reconcile-every <interval>', 'reconciliation pass interval (everything re-read, only differences written), e.g. 24h')
    .option('--overrides <json>', 'mapping overrides as JSON, e.g. {"offer":{"rename":{"Marketplace__c":"Cloud__c"}}}')
    .option('--write-back', 'this connection writes CRM ids back to the commerce records (the others of its commerce organization stop)')
    .option('--no-write-back', 'this connection does not write CRM ids back')
    .option('--start-afresh', "when an existing connection now reaches another organization: forget its record links, cursors and open dead letters")
    .action((options) =>
      withConfig(async (config, logger) => {
        const settings = connectionSettingsSchema.parse({
          commerce: { baseUrl: options.commerceUrl, authUrl: options.commerceAuthUrl, clientId: options.commerceClientId, organizationId: options.commerceOrg },
          crm: { loginUrl: options.salesforceLoginUrl, clientId: options.salesforceClientId },
          entities: parseEntities(options.entities),
          overrides: options.overrides ? JSON.parse(options.overrides) : {},
          schedule: { every: options.every, ...(options.reconcileEvery && { reconcileEvery: options.reconcileEvery }) },
        });
        const secrets = connectionSecretsSchema.parse({
          commerceClientSecret: process.env.COMMERCE_CLIENT_SECRET,
          crmClientSecret: process.env.SALESFORCE_CLIENT_SECRET,
          crmRefreshToken: process.env.SALESFORCE_REFRESH_TOKEN || undefined,
        });
        const verified = await verifyConnection(settings, secrets);
        const context = await openCommandContext(config, logger);
        try {
          const existing = (await context.connections.list()).find((connection) => connection.name === options.name);
          const { summary } = await saveAndSchedule(context, config.temporal.taskQueue, {
            command: 'connect',
            name: options.name,
            existing,
            settings,
            secrets,
            crmOrganizationId: verified.crmOrganizationId,
            startAfresh: Boolean(options.startAfresh),
            writeBack: options.writeBack,
          });
          process.stdout.write(JSON.stringify({ ...summary, verified }) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('connections')
    .description('list connections (settings only, never secrets) and which one writes CRM ids back')
    .action(() =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const all = await context.connections.list();
          const listed = all.map((connection) => ({ ...connection, writesBack: writesBack(connection, all) }));
          process.stdout.write(JSON.stringify(listed, null, 2) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('sync <connection>')
    .description('run the scheduled sync of a connection now (skipped if one is running)')
    .action((connection: string) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          await triggerSync(await context.temporalClient(), found.id);
          process.stdout.write(`Triggered the sync of ${found.name}\n`);
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('dead-letters <connection>')
    .description("list records the CRM rejected, with the CRM's message; --retry gives them fresh attempts and starts the sync now")
    .option('--retry', `retry them now, also those that used all their ${MAX_DEAD_LETTER_ATTEMPTS} attempts`)
    .option('--entity <entity>', `only this entity (${ENTITIES.join(', ')}, or notification for feed events set aside)`)
    .option('--id <ids>', 'only these commerce record ids (comma-separated)')
    .action((connection: string, options: { retry?: boolean; entity?: string; id?: string }) =>
      withConfig(async (config, logger) => {
        const entity = options.entity === 'notification' ? 'notification' : options.entity ? parseEntities(options.entity)?.[0] : undefined;
        const sourceIds = options.id?.split(',').map((id) => id.trim()).filter(Boolean);
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const letters = createDeadLetterStore(context.database.pool);
          if (options.retry) {
            const { due, hadUsedAllAttempts } = await letters.retryByHand(found.id, { entity, sourceIds });
            const scope = [entity && `entity ${entity}`, sourceIds?.length && `id ${sourceIds.join(', ')}`].filter(Boolean).join(', ');
            if (due === 0) {
              process.stdout.write(`No open dead letters${scope ? ` (${scope})` : ''} for ${found.name}: nothing to retry\n`);
              return;
            }
            const client = await context.temporalClient();
            const running = (await client.schedule.getHandle(syncScheduleId(found.id)).describe()).info.runningActions.length > 0;
            if (!running) await triggerSync(client, found.id);
            const used = hadUsedAllAttempts ? ` (${hadUsedAllAttempts} had used all ${hadUsedAllAttempts === 1 ? 'its' : 'their'} ${MAX_DEAD_LETTER_ATTEMPTS} attempts)` : '';
            const what = `${due} dead letter${due === 1 ? '' : 's'}${used} ${due === 1 ? 'is' : 'are'} due now`;
            const when = running
              ? `a sync of ${found.name} is already running: it retries them after each entity's pass, or the next run does`
              : `the sync starts now and retries them`;
            const blocked = found.needsReauthorisation ? `; but the connection needs re-authorisation (${found.needsReauthorisation.reason}): no sync runs until crm-sync edit saves working secrets` : '';
            process.stdout.write(`${what}; ${when}${blocked}\n`);
            return;
          }
          const open = (await letters.listOpen(found.id, entity)).filter((letter) => !sourceIds?.length || sourceIds.includes(letter.sourceId));
          // Letters recorded before redaction existed may still hold secrets: never shown.
          const shown = open.map(({ payload: _payload, reason, crmError, ...rest }) => ({ ...rest, reason: redactText(reason), ...(crmError !== undefined && { crmError: redactSecrets(crmError) }) }));
          process.stdout.write(JSON.stringify(shown, null, 2) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );
}
