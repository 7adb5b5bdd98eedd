// `crm-sync audit`: the audit trail (issue #26 section 2), newest first, a page at a time: who changed
// what, when, from where (console, API, CLI), on which connection; filtered by connection, actor, action
// and time. --details shows what each settings or mapping change changed, value by value. Under --json one
// line: the page's events with the total, for scripts. Rows never hold a secret (store/audit.ts).
import { InvalidArgumentError, type Command } from 'commander';
import { auditDiff, detailText } from '../ops/audit-diff.ts';
import { createAuditStore, type AuditEvent } from '../store/audit.ts';
import { openCommandContext } from './context.ts';
import { colours, printResult, table, when } from './output.ts';
import { isoTime, nonBlank, wholeNumber } from './option-parsers.ts';
import type { withConfigType } from './with-config.ts';

export const AUDIT_PAGE_SIZE = 50;
const MAX_AUDIT_PAGE_SIZE = 500;
const AGE_UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

/** --since: an ISO 8601 time, or an age back from now (7d, 12h, 30m); returned in UTC. */
export function sinceTime(value: string, now = Date.now()): string {
  const age = /^([1-9]\d*)([dhm])$/.exec(value.trim());
  if (age) return new Date(now - Number(age[1]) * AGE_UNITS[age[2]!]!).toISOString();
  try {
    return isoTime(value.trim());
  } catch {
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a time; use ISO 8601 like 2026-01-01, or an age like 7d, 12h or 30m`);
  }
}

type AuditOptions = { connection?: string; actor?: string; action?: string; since?: string; limit: number; page: number; details?: boolean };

/** An event as scripts read it: the actor as a person reads it, the connection by id and name. */
type ShownEvent = Omit<AuditEvent, 'actor' | 'actorLabel'> & { actor: string; actorKind: AuditEvent['actor']['kind']; connection?: string };

export type AuditPage = { total: number; page: number; pages: number; limit: number; first: number; last: number; events: ShownEvent[] };

const count = (n: number) => n.toLocaleString('en-US');

function printPage(shown: AuditPage, details: boolean): string {
  if (shown.total === 0) return 'No audit events match.';
  if (shown.events.length === 0) return `Page ${shown.page} is past the end: ${count(shown.total)} events, ${shown.pages} page${shown.pages === 1 ? '' : 's'} of ${shown.limit}.`;
  const row = (event: ShownEvent) => [when(event.at), event.actor, event.via, event.action, event.connection ?? event.connectionId ?? '-', event.target ?? '-'];
  const head = ['TIME', 'WHO', 'VIA', 'ACTION', 'CONNECTION', 'TARGET'];
  const body = details
    ? shown.events.map((event) => [table(head, [row(event)]), ...changeLines(event)].join('\n')).join('\n\n')
    : table(head, shown.events.map(row));
  const more = shown.page < shown.pages ? `; --page ${shown.page + 1} for more` : '';
  return `${body}\n\nShowing ${count(shown.first)}–${count(shown.last)} of ${count(shown.total)}${more}`;
}

/** The values a change changed ("path  before -> after"), then anything else it noted. */
function changeLines(event: ShownEvent): string[] {
  const lines: string[] = [];
  if (event.before !== undefined || event.after !== undefined) {
    const rows = auditDiff(event.before, event.after);
    if (rows.length === 0) lines.push(colours.dim('  nothing changed'));
    const width = Math.max(0, ...rows.map((diff) => diff.path.length));
    for (const diff of rows) lines.push(`  ${diff.path.padEnd(width)}  ${diff.before ?? colours.dim('(none)')} -> ${diff.after ?? colours.dim('(none)')}`);
  }
  if (event.detail !== undefined) lines.push(colours.dim(`  ${detailText(event.detail)}`));
  return lines;
}

export function registerAuditCommand(program: Command, withConfig: withConfigType) {
  program
    .command('audit')
    .description('the audit trail: who changed what and when (console, API or CLI), on which connection, newest first; settings and mappings with their values before and after (never a secret)')
    .option('--connection <name>', 'only this connection (name or id)', nonBlank)
    .option('--actor <text>', 'only actions by someone whose name contains this ("ada", "token", "cli as root")', nonBlank)
    .option('--action <text>', 'only this action (connect, settings.edit, mapping.edit, pause, resume, retry, backfill, sync, setup, ...; "mapping" finds every mapping.*)', nonBlank)
    .option('--since <time>', 'only since this time: ISO 8601 (2026-01-01) or an age (7d, 12h, 30m)', (value: string) => sinceTime(value))
    .option('-n, --limit <n>', `events per page, 1 to ${MAX_AUDIT_PAGE_SIZE}`, wholeNumber(1, MAX_AUDIT_PAGE_SIZE), AUDIT_PAGE_SIZE)
    .option('--page <n>', 'which page, from 1', wholeNumber(1), 1)
    .option('--details', 'show what each change changed, value by value, and what else it noted')
    .addHelpText(
      'after',
      `
Examples:
  crm-sync audit                                    the last 50 changes
  crm-sync audit --connection acme --since 7d       a week of changes to acme
  crm-sync audit --action settings.edit --details   each settings edit, value by value
  crm-sync audit --actor ada@example.com --page 2
  crm-sync audit --action retry --json | jq '.events[] | {at, actor, target}'`,
    )
    .action((options: AuditOptions) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const only = options.connection ? await context.findConnection(options.connection) : undefined;
          const names = new Map((await context.connections.list()).map((connection) => [connection.id, connection.name]));
          const { limit, page } = options;
          const { total, events } = await createAuditStore(context.database.pool).list({
            connectionId: only?.id,
            actor: options.actor,
            action: options.action,
            since: options.since ? new Date(options.since) : undefined,
            limit,
            offset: (page - 1) * limit,
          });
          const first = (page - 1) * limit + 1;
          const shown: AuditPage = {
            total,
            page,
            pages: Math.max(1, Math.ceil(total / limit)),
            limit,
            first: events.length ? first : 0,
            last: events.length ? first + events.length - 1 : 0,
            events: events.map(({ actor, actorLabel, ...event }) => ({
              ...event,
              actor: actorLabel,
              actorKind: actor.kind,
              ...(event.connectionId && names.has(event.connectionId) && { connection: names.get(event.connectionId) }),
            })),
          };
          printResult(shown, (result) => printPage(result, Boolean(options.details)));
        } finally {
          await context.close();
        }
      })(),
    );
}
