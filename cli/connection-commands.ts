// `crm-sync connect`, `connections` and `dead-letters`: wiring a CRM account to a commerce organization.
// Secrets come from the environment (never from flags, which other users can read in the process list).
import type { Command } from 'commander';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import { createDeadLetterStore } from '../store/dead-letters.ts';
import { connectionSecretsSchema, connectionSettingsSchema } from '../sync/connection-settings.ts';
import { verifyConnection } from '../sync/verify-connection.ts';
import { ensureConnectionSchedules, triggerSync } from '../temporal/sync-schedules.ts';
import { openCommandContext } from './context.ts';
import type { withConfigType } from './with-config.ts';

export function parseEntities(value: string | undefined): Entity[] | undefined {
  if (!value) return undefined;
  const entities = value.split(',').map((entity) => entity.trim()).filter(Boolean);
  const unknown = entities.filter((entity) => !ENTITIES.includes(entity as Entity));
  if (unknown.length) throw new Error(`Unknown entit${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}: choose from ${ENTITIES.join(', ')}`);
  return entities as Entity[];
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
    .option('--overrides <json>', 'mapping overrides as JSON, e.g. {"offer":{"rename":{"Marketplace__c":"Cloud__c"}}}')
    .action((options) =>
      withConfig(async (config, logger) => {
        const settings = connectionSettingsSchema.parse({
          commerce: { baseUrl: options.commerceUrl, authUrl: options.commerceAuthUrl, clientId: options.commerceClientId, organizationId: options.commerceOrg },
          crm: { loginUrl: options.salesforceLoginUrl, clientId: options.salesforceClientId },
          entities: parseEntities(options.entities),
          overrides: options.overrides ? JSON.parse(options.overrides) : {},
          schedule: { every: options.every },
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
          const saved = existing
            ? await context.connections.update(existing.id, { settings, secrets })
            : await context.connections.create({ name: options.name, crmKind: 'salesforce', settings, secrets });
          const schedule = await ensureConnectionSchedules(await context.temporalClient(), { connectionId: saved.id, every: settings.schedule.every, realtimeEvery: settings.schedule.realtimeEvery, taskQueue: config.temporal.taskQueue });
          process.stdout.write(JSON.stringify({ connection: saved.id, name: saved.name, verified, schedule }) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('connections')
    .description('list connections (settings only, never secrets)')
    .action(() =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          process.stdout.write(JSON.stringify(await context.connections.list(), null, 2) + '\n');
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
    .description("list records the CRM rejected, with the CRM's message; --retry makes them due now")
    .option('--retry', 'retry them on the next run')
    .action((connection: string, options: { retry?: boolean }) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const letters = createDeadLetterStore(context.database.pool);
          if (options.retry) {
            const count = await letters.makeDue(found.id);
            await triggerSync(await context.temporalClient(), found.id);
            process.stdout.write(`${count} dead letter(s) will be retried now\n`);
            return;
          }
          const open = await letters.listOpen(found.id);
          process.stdout.write(JSON.stringify(open.map(({ payload: _payload, ...rest }) => rest), null, 2) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );
}
