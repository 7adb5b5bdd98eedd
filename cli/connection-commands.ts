// `crm-sync connect`, `connections` and `dead-letters`: wiring a CRM account to a commerce organization.
// Secrets come from the environment (never from flags, which other users can read in the process list).
import type { Command } from 'commander';
import { CRM_KINDS, CRM_NAMES, type CrmKind } from '../crm/connector.ts';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import type { Connection } from '../store/connections.ts';
import { MAX_DEAD_LETTER_ATTEMPTS } from '../store/dead-letters.ts';
import { forgetSyncState, type ForgottenSyncState } from '../store/sync-state.ts';
import { withTransaction } from '../store/transaction.ts';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSecrets, type ConnectionSettings } from '../sync/connection-settings.ts';
import { organizationChanges, OrganizationChangedError, verifyConnection } from '../sync/verify-connection.ts';
import { otherWriters } from '../sync/write-back-owner.ts';
import { explainSpentRefreshToken, storedRefreshTokenVault, unsavedSecretsVault, withNewestRefreshToken } from '../sync/refresh-token-handover.ts';
import { ensureConnectionSchedules, triggerSync } from '../temporal/sync-schedules.ts';
import { openCommandContext, type CommandContext } from './context.ts';
import type { withConfigType } from './with-config.ts';
import { errorsAction, retryAction } from './operations-commands.ts';
import { printResult } from './output.ts';
import { askForMissing } from './connect-prompts.ts';
import { recordAudit } from './audit.ts';
import { UsageError } from './exit-codes.ts';
import { digits, duration, entityList, httpUrl, idsText, jsonObject, letterEntity, nonBlank, oneOf, wholeNumber } from './option-parsers.ts';
import { settingsFromFlags } from './usage-errors.ts';

/** A list of entities given as text (or already read by --entities' parser), or a usage error naming them. */
export function parseEntities(value: string | Entity[] | undefined, flag = '--entities'): Entity[] | undefined {
  if (!value) return undefined;
  if (Array.isArray(value)) return value;
  try {
    return entityList(value);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
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
  /** connect --paused: a new connection's schedules start paused. */
  paused?: boolean;
  /**
   * The refresh token is the saved one (edit without a new one): save it as stored when saving, since
   * the check and the workers may have rotated it since it was read.
   */
  keepStoredRefreshToken?: boolean;
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
  if (existing && !savedCrm && request.crmOrganizationId) notes.push(`Saved the ${CRM_NAMES[settings.crm.kind]} ${settings.crm.kind === 'salesforce' ? 'org' : 'account'} id ${request.crmOrganizationId} these credentials reach (none was saved before).`);

  const all = await context.connections.list();
  const self = { id: existing?.id ?? '', name: request.name, crmKind: settings.crm.kind, settings };
  const commerceMoved = changes.some((change) => change.side === 'commerce');
  const savedFlag = (existing?.settings as { writeBack?: unknown } | undefined)?.writeBack;
  if (request.writeBack !== undefined) settings.writeBack = request.writeBack;
  else if (typeof savedFlag === 'boolean' && !commerceMoved) settings.writeBack = savedFlag;
  else settings.writeBack = otherWriters(self, all).length === 0;

  const { saved, forgotten, gaveUp } = await withTransaction(context.database.pool, async (tx) => {
    // Under the renewal lock, so a renewal in flight hands its rotated token over before this is read.
    const secrets =
      existing && request.keepStoredRefreshToken
        ? await context.connections.withSecretsLock(existing.id, async (stored) => ({ ...request.secrets, crmRefreshToken: (await stored.read()).crmRefreshToken }), tx)
        : request.secrets;
    const saved = existing
      ? await context.connections.update(existing.id, { settings, secrets }, tx)
      : await context.connections.create({ name: request.name, crmKind: settings.crm.kind, settings, secrets: request.secrets }, tx);
    const forgotten = changes.length ? await forgetSyncState(tx, saved.id) : undefined;
    // Claimed under a lock, so at most one connection of the commerce organization writes back.
    const gaveUp = settings.writeBack ? await context.connections.setWriteBack(saved.id, true, tx) : [];
    // The audit row in the same transaction: the settings before and after (secrets are never in settings).
    const noted = { ...(forgotten && { startedAfresh: forgotten }), ...(gaveUp.length && { writeBackTakenFrom: gaveUp.map((other) => other.name) }) };
    await recordAudit(tx, {
      action: existing ? 'settings.edit' : 'connect',
      connectionId: saved.id,
      ...(existing && { before: existing.settings }),
      after: saved.settings,
      ...(Object.keys(noted).length && { detail: { command: request.command, ...noted } }),
    });
    return { saved, forgotten, gaveUp };
  });

  if (forgotten) {
    notes.push(
      `Started afresh with ${changes.map((change) => `${change.side === 'crm' ? `${change.crmName ?? 'Salesforce'} ${change.crmName === 'HubSpot' ? 'account' : 'org'}` : 'commerce organization'} ${change.now} (was ${change.saved})`).join(' and ')}: ` +
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

/** connect and edit, for a person: what was saved and how it will run (the notes went to stderr). */
export function savedSentence(summary: { name: string; writesBack: boolean; schedule: unknown; verified: { commerceOrganization: string; crmOrganizationId?: string } }): string {
  return `Saved ${summary.name}: commerce organization ${summary.verified.commerceOrganization} and the CRM${summary.verified.crmOrganizationId ? ` (${summary.verified.crmOrganizationId})` : ''} accept the credentials and the mappings fit. ` +
    `It ${summary.writesBack ? 'writes' : 'does not write'} CRM ids back. See it with crm-sync show ${summary.name}`;
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
    paused: request.paused,
  });
  printNotes(outcome.notes);
  return { ...outcome, schedule, summary: { connection: outcome.saved.id, name: outcome.saved.name, schedule, writesBack: outcome.writesBack, startedAfresh: outcome.startedAfresh, notes: outcome.notes } };
}

/** The CRM kind `connect`'s options point at when --crm is not given. */
function crmKindFromOptions(options: Record<string, unknown>): string {
  if (options.dynamicsUrl) return 'dynamics';
  if (options.hubspotClientId || options.hubspotPortalId || (options.hubspotUrl && options.hubspotUrl !== 'https://api.hubapi.com')) return 'hubspot';
  return 'salesforce';
}

/** The CRM side of `connect`'s options; a missing option is named. */
function crmSettingsFromOptions(options: Record<string, string | number | undefined>): Record<string, unknown> {
  const kind = (options.crm as string | undefined) ?? crmKindFromOptions(options);
  if (!(CRM_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--crm: ${JSON.stringify(kind)} is not a CRM; choose ${CRM_KINDS.join(', ')}`);
  if (kind === 'salesforce') {
    const missing = [!options.salesforceLoginUrl && '--salesforce-login-url', !options.salesforceClientId && '--salesforce-client-id'].filter(Boolean);
    if (missing.length) throw new UsageError(`A Salesforce connection needs ${missing.join(' and ')}`);
    return { kind, loginUrl: options.salesforceLoginUrl, clientId: options.salesforceClientId };
  }
  if (kind === 'hubspot') {
    return { kind, baseUrl: options.hubspotUrl, auth: options.hubspotClientId ? 'oauth' : 'private-app', clientId: options.hubspotClientId, portalId: options.hubspotPortalId };
  }
  if (kind === 'dynamics') {
    const missing = [!options.dynamicsUrl && '--dynamics-url', !options.dynamicsTenantId && '--dynamics-tenant-id', !options.dynamicsClientId && '--dynamics-client-id'].filter(Boolean);
    if (missing.length) throw new UsageError(`A Dynamics 365 connection needs ${missing.join(', ')}`);
    return {
      kind,
      orgUrl: options.dynamicsUrl,
      tenantId: options.dynamicsTenantId,
      clientId: options.dynamicsClientId,
      ...(options.dynamicsAuthority && { authority: options.dynamicsAuthority }),
      ...(options.dynamicsConcurrency !== undefined && { concurrency: options.dynamicsConcurrency }),
    };
  }
  throw new Error(`${CRM_NAMES[kind as CrmKind]} connections are not supported yet`);
}

/** The CRM's secrets, from the environment (never flags: other users can read the process list). */
function crmSecretsFromEnvironment(crm: Record<string, unknown>): Partial<ConnectionSecrets> {
  const env = (name: string) => process.env[name] || undefined;
  if (crm.kind === 'hubspot') {
    if (crm.auth === 'oauth') {
      if (!env('HUBSPOT_CLIENT_SECRET') || !env('HUBSPOT_REFRESH_TOKEN')) throw new UsageError('A HubSpot OAuth connection needs HUBSPOT_CLIENT_SECRET and HUBSPOT_REFRESH_TOKEN in the environment');
      return { crmClientSecret: env('HUBSPOT_CLIENT_SECRET'), crmRefreshToken: env('HUBSPOT_REFRESH_TOKEN') };
    }
    if (!env('HUBSPOT_ACCESS_TOKEN')) throw new UsageError("A HubSpot private app connection needs the app's access token in HUBSPOT_ACCESS_TOKEN (or --hubspot-client-id with HUBSPOT_CLIENT_SECRET and HUBSPOT_REFRESH_TOKEN for OAuth)");
    return { crmAccessToken: env('HUBSPOT_ACCESS_TOKEN') };
  }
  if (crm.kind === 'dynamics') {
    if (!env('DYNAMICS_CLIENT_SECRET')) throw new UsageError("A Dynamics 365 connection needs the app registration's client secret in DYNAMICS_CLIENT_SECRET");
    return { crmClientSecret: env('DYNAMICS_CLIENT_SECRET') };
  }
  if (!env('SALESFORCE_CLIENT_SECRET')) throw new UsageError("A Salesforce connection needs the connected app's secret in SALESFORCE_CLIENT_SECRET");
  return { crmClientSecret: env('SALESFORCE_CLIENT_SECRET'), crmRefreshToken: env('SALESFORCE_REFRESH_TOKEN') };
}

export function registerConnectionCommands(program: Command, withConfig: withConfigType) {
  program
    .command('connect')
    .description(
      'create (or update) a connection after testing both sides; on a terminal it asks for what is missing (secrets not echoed); secrets from the environment: COMMERCE_CLIENT_SECRET and, for Salesforce, ' +
        'SALESFORCE_CLIENT_SECRET [, SALESFORCE_REFRESH_TOKEN]; for HubSpot, HUBSPOT_ACCESS_TOKEN (private app) or HUBSPOT_CLIENT_SECRET and HUBSPOT_REFRESH_TOKEN (OAuth); for Dynamics 365, DYNAMICS_CLIENT_SECRET',
    )
    .option('--name <name>', 'a name for the connection', nonBlank)
    .option('--commerce-url <url>', 'commerce API base URL', httpUrl)
    .option('--commerce-auth-url <url>', 'commerce token host', httpUrl)
    .option('--commerce-client-id <id>', 'commerce OAuth client id', nonBlank)
    .option('--commerce-org <orgId>', 'commerce organization id', nonBlank)
    .option('--crm <kind>', `the CRM: ${CRM_KINDS.join(', ')} (default: the one whose options are given, else salesforce)`, oneOf('a CRM', CRM_KINDS))
    .option('--salesforce-login-url <url>', 'Salesforce login URL (https://login.salesforce.com or My Domain)', httpUrl)
    .option('--salesforce-client-id <id>', 'Salesforce connected app consumer key', nonBlank)
    .option('--hubspot-url <url>', 'HubSpot API base URL', httpUrl, 'https://api.hubapi.com')
    .option('--hubspot-client-id <id>', 'HubSpot OAuth app client id (without it: a private app token)', nonBlank)
    .option('--hubspot-portal-id <id>', 'HubSpot account id (links to records use it)', digits)
    .option('--dynamics-url <url>', 'Dynamics 365 environment URL, e.g. https://contoso.crm.dynamics.com/', httpUrl)
    .option('--dynamics-tenant-id <id>', 'Microsoft Entra tenant id (directory id) of the app registration', nonBlank)
    .option('--dynamics-client-id <id>', 'app registration (client) id; the app must be an application user of the environment', nonBlank)
    .option('--dynamics-authority <url>', 'identity platform authority', httpUrl, 'https://login.microsoftonline.com')
    .option('--dynamics-concurrency <n>', 'requests in flight at once to this environment (Dataverse allows 52 per user)', wholeNumber(1, 52))
    .option('--entities <list>', `entities to sync (${ENTITIES.join(',')})`, entityList)
    .option('--every <interval>', 'sync interval, e.g. 5m', duration, '5m')
    .option('--reconcile-every <interval>', 'reconciliation pass interval (everything re-read, only differences written), e.g. 24h', duration)
    .option('--overrides <json>', 'mapping overrides as JSON, e.g. {"offer":{"rename":{"Marketplace__c":"Cloud__c"}}}', jsonObject('{"offer":{"rename":{"Marketplace__c":"Cloud__c"}}}'))
    .option('--write-back', 'this connection writes CRM ids back to the commerce records (the others of its commerce organization stop)')
    .option('--no-write-back', 'this connection does not write CRM ids back')
    .option('--paused', 'create the schedules paused: check the mapping and preview first, then crm-sync resume')
    .option('--start-afresh', "when an existing connection now reaches another organization: forget its record links, cursors and open dead letters")
    .addHelpText(
      'after',
      `
Examples:
  crm-sync connect                      on a terminal: asks for each setting and secret
  export COMMERCE_CLIENT_SECRET=... SALESFORCE_CLIENT_SECRET=...
  crm-sync connect --name acme --commerce-url https://api.example --commerce-auth-url https://auth.example \\
    --commerce-client-id c1 --commerce-org org-1 \\
    --salesforce-login-url https://acme.my.salesforce.com --salesforce-client-id 3MVG9... --every 5m --paused
  export HUBSPOT_ACCESS_TOKEN=...
  crm-sync connect --name acme-hs --crm hubspot --hubspot-portal-id 123456 ... --entities buyer,offer`,
    )
    .action((options) =>
      withConfig(async (config, logger) => {
        await askForMissing(options, options.crm ?? crmKindFromOptions(options));
        const crm = crmSettingsFromOptions(options);
        const settings = settingsFromFlags({
          commerce: { baseUrl: options.commerceUrl, authUrl: options.commerceAuthUrl, clientId: options.commerceClientId, organizationId: options.commerceOrg },
          crm,
          entities: options.entities,
          overrides: options.overrides ?? {},
          schedule: { every: options.every, ...(options.reconcileEvery && { reconcileEvery: options.reconcileEvery }) },
        });
        if (!process.env.COMMERCE_CLIENT_SECRET) throw new UsageError("A connection needs the commerce client's secret in COMMERCE_CLIENT_SECRET (secrets never go on the command line)");
        const typed = connectionSecretsSchema.parse({ commerceClientSecret: process.env.COMMERCE_CLIENT_SECRET, ...crmSecretsFromEnvironment(crm) });
        const context = await openCommandContext(config, logger);
        try {
          const existing = (await context.connections.list()).find((connection) => connection.name === options.name);
          // The check signs in, which rotates a Salesforce refresh token. The connection's own saved token
          // goes through its vault (a rotation is saved at once, whatever fails later); a token saved
          // nowhere yet through one in memory, its newest saved with the connection.
          const savedToken = existing && (await context.connections.getWithSecrets(existing.id))?.secrets.crmRefreshToken;
          const keepsSavedToken = Boolean(typed.crmRefreshToken) && savedToken === typed.crmRefreshToken;
          const unsaved = keepsSavedToken ? undefined : unsavedSecretsVault(typed);
          const checkAndSave = async () => {
            const verified = await verifyConnection(settings, typed, { refreshTokens: unsaved ?? storedRefreshTokenVault(context.connections, existing!.id) });
            const { summary } = await saveAndSchedule(context, config.temporal.taskQueue, {
              command: 'connect',
              name: options.name,
              existing,
              settings,
              secrets: unsaved ? withNewestRefreshToken(typed, unsaved) : typed,
              keepStoredRefreshToken: !unsaved,
              crmOrganizationId: verified.crmOrganizationId,
              startAfresh: Boolean(options.startAfresh),
              writeBack: options.writeBack,
              paused: Boolean(options.paused),
            });
            return { summary, verified };
          };
          const { summary, verified } = await checkAndSave().catch(async (error: unknown) => {
            if (!unsaved) throw error;
            const found = (await context.connections.list()).find((connection) => connection.name === options.name);
            throw await explainSpentRefreshToken(error, typed.crmRefreshToken, unsaved, { connections: context.connections, id: found?.id, existed: Boolean(existing) });
          });
          printResult({ ...summary, verified }, savedSentence);
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('sync <connection>')
    .description('run the scheduled sync of a connection now (skipped if one is running)')
    .addHelpText('after', '\nExamples:\n  crm-sync sync acme\n  crm-sync sync acme && crm-sync runs acme -n 1')
    .action((connection: string) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          await triggerSync(await context.temporalClient(), found.id);
          await recordAudit(context.database.pool, { action: 'sync', connectionId: found.id });
          printResult({ connection: found.id, name: found.name, triggered: true }, () => `Triggered the sync of ${found.name}; watch it with crm-sync runs ${found.name}`);
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('dead-letters <connection>')
    .description("list records the CRM rejected, with the CRM's message; --retry gives them fresh attempts and starts the sync now (the same as crm-sync errors and crm-sync retry)")
    .option('--retry', `retry them now, also those that used all their ${MAX_DEAD_LETTER_ATTEMPTS} attempts`)
    .option('--entity <entity>', `only this entity (${ENTITIES.join(', ')}, notification for feed events set aside, or opportunity-referral / opportunity-draft-offer for co-sell outcomes the CRM refused)`, letterEntity)
    .option('--id <ids>', 'only these commerce record ids (comma-separated)', idsText)
    .option('--payload', 'show the mapped payload of each record too')
    .addHelpText('after', '\nExamples:\n  crm-sync dead-letters acme --entity offer\n  crm-sync dead-letters acme --retry --id offer-123,offer-456')
    .action((connection: string, options: { retry?: boolean; entity?: string; id?: string; payload?: boolean }) =>
      (options.retry ? retryAction(withConfig, connection, options) : errorsAction(withConfig, connection, options))(),
    );
}
