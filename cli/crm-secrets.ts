// Where each CRM kind's secrets come from on the command line: environment variables, never flags
// (other users can read the process list). `connect` requires the ones its CRM needs; `edit` takes
// whichever are set, so a rotated secret is saved without repeating the others.
import type { CrmKind } from '../crm/connector.ts';
import type { ConnectionSecrets } from '../sync/connection-settings.ts';

export const CRM_SECRET_VARIABLES: Record<CrmKind, Partial<Record<Exclude<keyof ConnectionSecrets, 'commerceClientSecret'>, string>>> = {
  salesforce: { crmClientSecret: 'SALESFORCE_CLIENT_SECRET', crmRefreshToken: 'SALESFORCE_REFRESH_TOKEN' },
  hubspot: { crmAccessToken: 'HUBSPOT_ACCESS_TOKEN', crmClientSecret: 'HUBSPOT_CLIENT_SECRET', crmRefreshToken: 'HUBSPOT_REFRESH_TOKEN' },
  dynamics: { crmClientSecret: 'DYNAMICS_CLIENT_SECRET' },
};

/** The CRM secrets of this kind set in the environment (empty values are not set). */
export function crmSecretsSet(kind: CrmKind, env: NodeJS.ProcessEnv = process.env): Partial<ConnectionSecrets> {
  return Object.fromEntries(Object.entries(CRM_SECRET_VARIABLES[kind]).flatMap(([secret, variable]) => (env[variable] ? [[secret, env[variable]]] : [])));
}
