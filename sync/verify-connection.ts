// Before a connection is saved: prove both sides' credentials work and that the mappings fit the CRM.
// Every problem found is reported at once, in words a revenue-ops person can act on.
import { createCommerceClient } from '../commerce/index.ts';
import { createSalesforceConnector } from '../crm/salesforce/connector.ts';
import { checkMappings } from '../mappings/check.ts';
import { SALESFORCE_MAPPINGS } from '../mappings/salesforce/index.ts';
import type { ConnectionSecrets, ConnectionSettings } from './connection-settings.ts';

export class ConnectionCheckError extends Error {
  override name = 'ConnectionCheckError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The connection was not saved:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

export async function verifyConnection(settings: ConnectionSettings, secrets: ConnectionSecrets): Promise<{ crmOrganizationId?: string; commerceOrganization: string }> {
  const problems: string[] = [];
  const commerce = createCommerceClient({ ...settings.commerce, clientSecret: secrets.commerceClientSecret, retries: 2 });
  try {
    const organizations = await commerce.organizations();
    if (!organizations.some((organization) => organization.id === settings.commerce.organizationId)) {
      problems.push(`commerce: these credentials do not reach organization ${settings.commerce.organizationId} (they reach: ${organizations.map((o) => o.id).join(', ') || 'none'})`);
    }
  } catch (error) {
    problems.push(`commerce: ${(error as Error).message}`);
  }
  const crm = createSalesforceConnector(
    { loginUrl: settings.crm.loginUrl, apiVersion: settings.crm.apiVersion },
    { clientId: settings.crm.clientId, clientSecret: secrets.crmClientSecret, refreshToken: secrets.crmRefreshToken },
  );
  let crmOrganizationId: string | undefined;
  try {
    crmOrganizationId = (await crm.verify()).organizationId;
    const selected = Object.fromEntries(settings.entities.map((entity) => [entity, SALESFORCE_MAPPINGS[entity]]));
    await checkMappings(crm, selected, settings.overrides);
  } catch (error) {
    const detail = (error as { problems?: string[] }).problems;
    if (detail) problems.push(...detail.map((problem) => `Salesforce mapping: ${problem}`));
    else problems.push(`Salesforce: ${(error as Error).message}`);
  }
  if (problems.length > 0) throw new ConnectionCheckError(problems);
  return { crmOrganizationId, commerceOrganization: settings.commerce.organizationId };
}
