// A wrong command line, said in one line per problem that names the flag or variable: commander's
// messages made into `--flag: what it takes`, and zod's issues on connection settings into
// `--flag (path): message` (the README's exit code 2).
import type { z } from 'zod';
import { connectionSettingsSchema, type ConnectionSettings } from '../sync/connection-settings.ts';
import { UsageError } from './exit-codes.ts';

/** Commander's error text as one line: `--every: "5x" is not a duration; ...`, or its own sentence. */
export function commanderErrorLine(text: string): string {
  const line = text.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  const flag = (short: string | undefined, long: string) => (short ? `${long} (${short})` : long);
  const invalid = /^option '(?:(-\w), )?(--[\w-]+)[^']*' argument '.*' is invalid\. (.*)$/.exec(line);
  if (invalid) return `${flag(invalid[1], invalid[2]!)}: ${invalid[3]}`;
  const missing = /^option '(?:(-\w), )?(--[\w-]+) (<[^>]+>)' argument missing$/.exec(line);
  if (missing) return `${flag(missing[1], missing[2]!)}: needs a value ${missing[3]}`;
  return line;
}

/** A configuration error (environment variables) as one line per variable, without the heading. */
export function configErrorLines(message: string): string {
  return message.replace(/^Invalid configuration:\n/, '').split('\n').map((line) => line.trim()).filter(Boolean).join('\n');
}

/** Which flag sets which setting; the longest matching path wins. */
export const SETTING_FLAGS: Record<string, string> = {
  'commerce.baseUrl': '--commerce-url',
  'commerce.authUrl': '--commerce-auth-url',
  'commerce.clientId': '--commerce-client-id',
  'commerce.organizationId': '--commerce-org',
  'crm.loginUrl': '--salesforce-login-url',
  'crm.orgUrl': '--dynamics-url',
  'crm.tenantId': '--dynamics-tenant-id',
  'crm.baseUrl': '--hubspot-url',
  'crm.portalId': '--hubspot-portal-id',
  'crm.authority': '--dynamics-authority',
  'crm.concurrency': '--dynamics-concurrency',
  entities: '--entities',
  overrides: '--overrides',
  cosell: '--cosell',
  'cosell.owners.stage': '--stage-owner',
  'renewals.leadDays': '--renewal-lead-days',
  'schedule.every': '--every',
  'schedule.realtimeEvery': '--realtime-every',
  'schedule.reconcileEvery': '--reconcile-every',
  'schedule.cosellEvery': '--cosell-every',
  'schedule.pageSize': '--page-size',
  'schedule.lookbackSeconds': '--lookback-seconds',
};

/** One line per issue, naming the flag that set the value where there is one, and the setting's path. */
export function settingsProblems(error: z.ZodError, flags: Record<string, string> = SETTING_FLAGS): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const flag = Object.keys(flags)
        .filter((prefix) => path === prefix || path.startsWith(`${prefix}.`))
        .sort((a, b) => b.length - a.length)[0];
      const where = flag ? `${flags[flag]} (${path})` : path || 'settings';
      return `${where}: ${issue.message}`;
    })
    .join('\n');
}

/** Connection settings built from flags, or a usage error naming each bad value. */
export function settingsFromFlags(input: unknown): ConnectionSettings {
  const parsed = connectionSettingsSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(settingsProblems(parsed.error));
  return parsed.data;
}
