// `crm-sync connect` on a terminal asks for what its flags and environment did not give (secrets typed
// without echo, never stored in shell history); in a script it names every missing flag instead.
import { input, password } from '@inquirer/prompts';
import { EXIT, ExitError } from './exit-codes.ts';

type Asked = { key: string; flag: string; question: string };

const COMMERCE: Asked[] = [
  { key: 'name', flag: '--name', question: 'A name for the connection' },
  { key: 'commerceUrl', flag: '--commerce-url', question: 'Commerce API base URL' },
  { key: 'commerceAuthUrl', flag: '--commerce-auth-url', question: 'Commerce token host' },
  { key: 'commerceClientId', flag: '--commerce-client-id', question: 'Commerce OAuth client id' },
  { key: 'commerceOrg', flag: '--commerce-org', question: 'Commerce organization id' },
];

const CRM: Record<string, Asked[]> = {
  salesforce: [
    { key: 'salesforceLoginUrl', flag: '--salesforce-login-url', question: 'Salesforce login URL (https://login.salesforce.com or your My Domain)' },
    { key: 'salesforceClientId', flag: '--salesforce-client-id', question: "Salesforce connected app's consumer key" },
  ],
  hubspot: [],
  dynamics: [
    { key: 'dynamicsUrl', flag: '--dynamics-url', question: 'Dynamics 365 environment URL (https://contoso.crm.dynamics.com/)' },
    { key: 'dynamicsTenantId', flag: '--dynamics-tenant-id', question: 'Microsoft Entra tenant id' },
    { key: 'dynamicsClientId', flag: '--dynamics-client-id', question: 'App registration (client) id' },
  ],
};

/** The secrets each CRM kind needs, by environment variable. */
function secretsNeeded(kind: string, options: Record<string, unknown>): [string, string][] {
  const commerce: [string, string] = ['COMMERCE_CLIENT_SECRET', 'Commerce client secret'];
  if (kind === 'hubspot') {
    return options.hubspotClientId
      ? [commerce, ['HUBSPOT_CLIENT_SECRET', "HubSpot app's client secret"], ['HUBSPOT_REFRESH_TOKEN', 'HubSpot refresh token']]
      : [commerce, ['HUBSPOT_ACCESS_TOKEN', "HubSpot private app's access token"]];
  }
  if (kind === 'dynamics') return [commerce, ['DYNAMICS_CLIENT_SECRET', "App registration's client secret"]];
  return [commerce, ['SALESFORCE_CLIENT_SECRET', "Salesforce connected app's consumer secret"]];
}

export const isInteractive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY) && process.env.CRM_SYNC_OUTPUT !== 'json';

/**
 * Fills `options` (and the secrets' environment variables, for this process only) by asking on a
 * terminal; elsewhere throws a usage error naming every missing flag.
 */
export async function askForMissing(options: Record<string, unknown>, kind: string, interactive = isInteractive()): Promise<void> {
  const missing = [...COMMERCE, ...(CRM[kind] ?? [])].filter((asked) => !options[asked.key]);
  if (missing.length && !interactive) {
    throw new ExitError(`crm-sync connect needs ${missing.map((asked) => asked.flag).join(', ')} (or run it on a terminal to be asked)`, EXIT.usage);
  }
  const context = { output: process.stderr };
  for (const asked of missing) options[asked.key] = await input({ message: asked.question, required: true }, context);
  if (!interactive) return;
  for (const [variable, question] of secretsNeeded(kind, options)) {
    if (!process.env[variable]) process.env[variable] = await password({ message: `${question} (not shown; or set ${variable})`, mask: true }, context);
  }
}
