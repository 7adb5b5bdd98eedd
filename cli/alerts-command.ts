// `crm-sync alerts <connection>`: the connection's alert routes (issue #27 section 2): which notification
// events go to a Slack or Teams webhook, to email addresses, or to the CRM record owner's email, through
// SMTP. Lists them (the default), adds one (--add), sends one sample (--test) or removes one (--remove).
// A listing shows each destination's kind and a masked hint, never a webhook URL or an SMTP password;
// adding and removing are recorded in the audit trail, without secrets.
import { InvalidArgumentError, type Command } from 'commander';
import { createAlertActivities } from '../activities/alerts.ts';
import { createAlertDeliveryStore } from '../alerts/deliveries-store.ts';
import { createAlertRouteStore, type AlertRoute, type Destination, type SmtpSettings } from '../alerts/routes-store.ts';
import { resolveSecretBox } from '../store/secret-box.ts';
import { withTransaction } from '../store/transaction.ts';
import { recordAudit } from './audit.ts';
import { openCommandContext } from './context.ts';
import { UsageError } from './exit-codes.ts';
import { printResult, table } from './output.ts';
import { httpUrl, nonBlank, port } from './option-parsers.ts';
import type { withConfigType } from './with-config.ts';

/** --events: ENTITYTYPE.ACTION (OFFER.ACCEPTED), ENTITYTYPE.* (every event of offers) or * (every event), comma-separated. */
export function eventTypeList(value: string): string[] {
  const types = value.split(',').map((type) => type.trim().toUpperCase()).filter(Boolean);
  const wrong = types.filter((type) => type !== '*' && !/^[A-Z_]+\.([A-Z_]+|\*)$/.test(type));
  if (types.length === 0 || wrong.length) {
    throw new InvalidArgumentError(`${wrong.length ? `${wrong.map((type) => JSON.stringify(type)).join(', ')} ${wrong.length > 1 ? 'are' : 'is'} not an event type` : 'no event type given'}; use ENTITY.ACTION like OFFER.ACCEPTED, OFFER.* or *, comma-separated`);
  }
  return types;
}

/** --email: one or more addresses, comma-separated. */
export function emailList(value: string): string[] {
  const addresses = value.split(',').map((address) => address.trim()).filter(Boolean);
  const wrong = addresses.filter((address) => !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address));
  if (addresses.length === 0 || wrong.length) throw new InvalidArgumentError(`${wrong.length ? `${wrong.map((a) => JSON.stringify(a)).join(', ')} is not an email address` : 'no address given'}; give one or more, comma-separated`);
  return addresses;
}

type AlertsOptions = {
  add?: boolean;
  test?: string;
  remove?: string;
  events?: string[];
  marketplaces?: string;
  slack?: string;
  teams?: string;
  email?: string[];
  ownerEmail?: boolean;
  smtpHost?: string;
  smtpPort?: number;
  smtpSecure?: boolean;
  smtpUser?: string;
  smtpPasswordEnv: string;
  smtpFrom?: string;
};

/** The destination the flags name, or a usage error saying what is missing. */
export function destinationFromFlags(options: AlertsOptions, env: NodeJS.ProcessEnv = process.env): Destination {
  const chosen = [options.slack && '--slack', options.teams && '--teams', options.email && '--email', options.ownerEmail && '--owner-email'].filter(Boolean);
  if (chosen.length !== 1) throw new UsageError(`--add: give exactly one destination: --slack <url>, --teams <url>, --email <to> or --owner-email${chosen.length ? ` (got ${chosen.join(' and ')})` : ''}`);
  if (options.slack) return { kind: 'slack', url: options.slack };
  if (options.teams) return { kind: 'teams', url: options.teams };
  if (!options.smtpHost) throw new UsageError(`${chosen[0]}: needs --smtp-host <host> (the SMTP server that sends the alerts)`);
  if (!options.smtpFrom) throw new UsageError(`${chosen[0]}: needs --smtp-from <address> (who the alerts come from)`);
  const password = env[options.smtpPasswordEnv];
  if (options.smtpUser && !password) throw new UsageError(`--smtp-user: needs the SMTP password in the environment variable ${options.smtpPasswordEnv} (set it, or name another with --smtp-password-env)`);
  const secure = Boolean(options.smtpSecure);
  const smtp: SmtpSettings = { host: options.smtpHost, port: options.smtpPort ?? (secure ? 465 : 587), secure, from: options.smtpFrom, ...(options.smtpUser && { user: options.smtpUser, password }) };
  return options.email ? { kind: 'email', to: options.email, smtp } : { kind: 'owner-email', smtp };
}

const shown = (route: AlertRoute & { deliveries?: Record<string, number> }) => ({ id: route.id, events: route.eventTypes, marketplaces: route.marketplaces, destination: route.kind, hint: route.hint, createdAt: route.createdAt, ...(route.deliveries && { deliveries: route.deliveries }) });

export function registerAlertsCommand(program: Command, withConfig: withConfigType) {
  program
    .command('alerts')
    .argument('<connection>', 'connection name or id')
    .description("the connection's alert routes: which marketplace events go to Slack, Teams or email (SMTP), or to the CRM record owner's email; list (default), --add, --test or --remove. Webhook URLs and SMTP passwords are stored encrypted and never shown")
    .option('--add', 'add a route: --events and one destination')
    .option('--test <route-id>', 'send one sample alert through a route now', nonBlank)
    .option('--remove <route-id>', 'remove a route', nonBlank)
    .option('--events <types>', 'event types, comma-separated: OFFER.ACCEPTED, ENTITLEMENT.PENDING_CANCEL, REFERRAL.* or * for all', eventTypeList)
    .option('--marketplaces <names>', 'only events of these marketplaces (partners), comma-separated; default all', nonBlank)
    .option('--slack <url>', 'a Slack incoming webhook URL (https://hooks.slack.com/services/...)', httpUrl)
    .option('--teams <url>', 'a Microsoft Teams Workflows webhook URL ("When a Teams webhook request is received")', httpUrl)
    .option('--email <to>', 'email addresses, comma-separated (needs --smtp-host and --smtp-from)', emailList)
    .option('--owner-email', "email the owner of the CRM record the event concerns (Salesforce, HubSpot and Dynamics 365; needs --smtp-host and --smtp-from)")
    .option('--smtp-host <host>', 'SMTP server', nonBlank)
    .option('--smtp-port <port>', 'SMTP port (default 587, or 465 with --smtp-secure)', port)
    .option('--smtp-secure', 'TLS from the first byte (port 465); without it STARTTLS is used whenever the server offers it')
    .option('--smtp-user <user>', 'SMTP login (the password is read from --smtp-password-env)', nonBlank)
    .option('--smtp-password-env <name>', 'environment variable holding the SMTP password (kept off the command line and shell history)', nonBlank, 'CRM_SYNC_SMTP_PASSWORD')
    .option('--smtp-from <address>', 'the From address of alert emails', nonBlank)
    .addHelpText(
      'after',
      `
Examples:
  crm-sync alerts acme                                                       the routes, masked
  crm-sync alerts acme --add --events OFFER.ACCEPTED,ENTITLEMENT.PENDING_CANCEL --slack https://hooks.slack.com/services/T.../B.../...
  crm-sync alerts acme --add --events 'REFERRAL.*' --marketplaces cloudA --teams 'https://prod-00.westeurope.logic.azure.com/workflows/...'
  CRM_SYNC_SMTP_PASSWORD=... crm-sync alerts acme --add --events '*' --email ops@example.com --smtp-host smtp.example.com --smtp-user alerts --smtp-from crm-sync@example.com
  crm-sync alerts acme --add --events OFFER.ACCEPTED --owner-email --smtp-host smtp.example.com --smtp-from crm-sync@example.com
  crm-sync alerts acme --test r-1a2b3c4d                                     one sample alert, now
  crm-sync alerts acme --remove r-1a2b3c4d
  crm-sync alerts acme --json`,
    )
    .action((connectionName: string, options: AlertsOptions) =>
      withConfig(async (config, logger) => {
        const actions = [options.add && '--add', options.test && '--test', options.remove && '--remove'].filter(Boolean);
        if (actions.length > 1) throw new UsageError(`${actions.join(' and ')}: choose one`);
        const destinationFlags = options.slack || options.teams || options.email || options.ownerEmail || options.events;
        if (!options.add && destinationFlags) throw new UsageError('--events and the destination flags add a route: give --add as well');
        const destination = options.add ? destinationFromFlags(options) : undefined;
        if (options.add && !options.events) throw new UsageError('--add: needs --events <types> (like OFFER.ACCEPTED, or * for every event)');
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connectionName);
          const box = resolveSecretBox(config);
          const routes = createAlertRouteStore(context.database.pool, box);
          if (destination) {
            const marketplaces = options.marketplaces?.split(',').map((name) => name.trim()).filter(Boolean) ?? [];
            const route = await withTransaction(context.database.pool, async (tx) => {
              const added = await createAlertRouteStore(context.database.pool, box).add({ connectionId: found.id, eventTypes: options.events!, marketplaces, destination }, tx);
              await recordAudit(tx, { action: 'alerts.add', connectionId: found.id, target: added.id, detail: { events: added.eventTypes, marketplaces, destination: added.kind, hint: added.hint } });
              return added;
            });
            printResult(shown(route), (r) => `Added alert route ${r.id}: ${r.events.join(', ')} to ${r.destination} (${r.hint}). Send a sample with crm-sync alerts ${found.name} --test ${r.id}`);
            return;
          }
          if (options.remove) {
            const removed = await withTransaction(context.database.pool, async (tx) => {
              const gone = await routes.remove(found.id, options.remove!, tx);
              if (gone) await recordAudit(tx, { action: 'alerts.remove', connectionId: found.id, target: gone.id, detail: { events: gone.eventTypes, destination: gone.kind, hint: gone.hint } });
              return gone;
            });
            if (!removed) throw new UsageError(`--remove: ${found.name} has no alert route ${JSON.stringify(options.remove)} (crm-sync alerts ${found.name} lists them)`);
            printResult(shown(removed), (r) => `Removed alert route ${r.id} (${r.destination}, ${r.hint})`);
            return;
          }
          if (options.test) {
            if (!(await routes.get(found.id, options.test))) throw new UsageError(`--test: ${found.name} has no alert route ${JSON.stringify(options.test)} (crm-sync alerts ${found.name} lists them)`);
            const activities = createAlertActivities({ pool: context.database.pool, secretBox: box, consoleUrl: process.env.CRM_SYNC_CONSOLE_URL, runtimeFor: async () => { throw new Error('a sample alert reads no connection'); } });
            await activities.sendSampleAlert({ routeId: options.test });
            printResult({ sent: true, route: options.test }, () => `Sent a sample alert through ${options.test}`);
            return;
          }
          const deliveries = createAlertDeliveryStore(context.database.pool);
          const listed = await Promise.all((await routes.list(found.id)).map(async (route) => shown({ ...route, deliveries: await deliveries.counts(route.id) })));
          printResult({ connection: found.name, routes: listed }, ({ routes: rows }) =>
            rows.length
              ? table(['ID', 'EVENTS', 'MARKETPLACES', 'DESTINATION', 'WHERE', 'SENT', 'WAITING', 'FAILED'], rows.map((r) => [r.id, r.events.join(', '), r.marketplaces.join(', ') || 'all', r.destination, r.hint, r.deliveries?.sent ?? 0, (r.deliveries?.pending ?? 0) + (r.deliveries?.sending ?? 0), r.deliveries?.failed ?? 0]))
              : `${found.name} has no alert routes. Add one: crm-sync alerts ${found.name} --add --events OFFER.ACCEPTED --slack <webhook URL>`,
          );
        } finally {
          await context.close();
        }
      })(),
    );
}
