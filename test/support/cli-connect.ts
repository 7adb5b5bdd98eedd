// `crm-sync connect` between the commerce sandbox and a CRM sandbox, as a person types it: flags for
// what is not secret, the secrets in the environment variables the command reads (never on the
// command line), for whichever CRM is under test.
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { CrmUnderTest } from './crm-sandbox.ts';

export type ConnectCommand = { args: string[]; env: NodeJS.ProcessEnv };

export function connectCommand(name: string, commerce: CommerceSandbox, crm: CrmUnderTest, extraFlags: string[] = []): ConnectCommand {
  const commerceFlags = ['--commerce-url', commerce.apiUrl, '--commerce-auth-url', commerce.authUrl, '--commerce-client-id', commerce.clientId, '--commerce-org', commerce.organizationId];
  const command = (crmFlags: string[], env: NodeJS.ProcessEnv): ConnectCommand => ({
    args: ['connect', '--name', name, ...crmFlags, ...commerceFlags, ...extraFlags],
    env: { COMMERCE_CLIENT_SECRET: commerce.clientSecret, ...env },
  });
  if (crm.salesforce) {
    const { loginUrl, clientId, clientSecret } = crm.salesforce;
    return command(['--crm', 'salesforce', '--salesforce-login-url', loginUrl, '--salesforce-client-id', clientId], { SALESFORCE_CLIENT_SECRET: clientSecret });
  }
  if (crm.hubspot) {
    const { baseUrl, oauth, accessToken } = crm.hubspot;
    const flags = ['--crm', 'hubspot', '--hubspot-url', baseUrl, '--hubspot-portal-id', '4242'];
    return crm.settings().auth === 'oauth'
      ? command([...flags, '--hubspot-client-id', oauth.clientId], { HUBSPOT_CLIENT_SECRET: oauth.clientSecret, HUBSPOT_REFRESH_TOKEN: oauth.refreshToken })
      : command(flags, { HUBSPOT_ACCESS_TOKEN: accessToken });
  }
  const { orgUrl, authority, tenantId, clientId, clientSecret } = crm.dynamics!;
  return command(
    ['--crm', 'dynamics', '--dynamics-url', orgUrl, '--dynamics-authority', authority, '--dynamics-tenant-id', tenantId, '--dynamics-client-id', clientId],
    { DYNAMICS_CLIENT_SECRET: clientSecret },
  );
}
