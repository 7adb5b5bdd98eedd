// Before a connection is saved: prove both sides' credentials work and that the mappings fit the CRM.
// Every problem found is reported at once, in words a revenue-ops person can act on.
import { createCommerceClient } from '../commerce/index.ts';
import { CRM_NAMES, type CrmConnector, type SecretsVault } from '../crm/connector.ts';
import { createConnector, mappingsFor } from '../crm/registry.ts';
import { checkMappings } from '../mappings/check.ts';
import type { ConnectionSecrets, ConnectionSettings } from './connection-settings.ts';
import { commerceOrganizationKey } from './write-back-owner.ts';
import { checkConnectionStageTables } from './stage-tables.ts';

export class ConnectionCheckError extends Error {
  override name = 'ConnectionCheckError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The connection was not saved:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

/** The mappings of the entities a connection syncs, with its overrides, against the CRM's schema (MappingConfigError names every problem). */
export async function checkConnectionMappings(crm: CrmConnector, settings: ConnectionSettings): Promise<void> {
  const mappings = mappingsFor(settings.crm.kind, settings.crm);
  await checkMappings(crm, Object.fromEntries(settings.entities.flatMap((entity) => (mappings[entity] ? [[entity, mappings[entity]]] : []))), settings.overrides);
}

/**
 * `refreshTokens`: where a refresh token the check's sign-in rotates goes (sync/refresh-token-handover.ts):
 * the saved connection's, or a vault in memory whose newest token the caller saves.
 */
export async function verifyConnection(
  settings: ConnectionSettings,
  secrets: ConnectionSecrets,
  options: { refreshTokens?: SecretsVault } = {},
): Promise<{ crmOrganizationId?: string; commerceOrganization: string }> {
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
  const crmName = CRM_NAMES[settings.crm.kind];
  let crmOrganizationId: string | undefined;
  try {
    const crm = createConnector(settings, secrets, { refreshTokens: options.refreshTokens });
    crmOrganizationId = (await crm.verify()).organizationId;
    const mappings = mappingsFor(settings.crm.kind, settings.crm);
    const missing = settings.entities.filter((entity) => !mappings[entity]);
    if (missing.length) problems.push(`${crmName} has no mapping for ${missing.join(', ')}: leave ${missing.length > 1 ? 'them' : 'it'} out of --entities`);
    // The co-sell stage tables a connection sets (sync/stage-tables.ts), each problem by name.
    problems.push(...(await checkConnectionStageTables(crm, settings.cosell.stages)).map((problem) => `${crmName} stage table: ${problem.code}: ${problem.message}`));
    await checkConnectionMappings(crm, settings);
  } catch (error) {
    const detail = (error as { problems?: string[] }).problems;
    if (detail) problems.push(...detail.map((problem) => `${crmName} mapping: ${problem}`));
    else problems.push(`${crmName}: ${(error as Error).message}`);
  }
  if (problems.length > 0) throw new ConnectionCheckError(problems);
  return { crmOrganizationId, commerceOrganization: settings.commerce.organizationId };
}

/** A side of a saved connection that now reaches another organization than the one it was saved with. */
export type OrganizationChange = { side: 'commerce' | 'crm'; saved: string; now: string; crmName?: string };

type SavedSides = { commerce?: { baseUrl?: unknown; organizationId?: unknown }; crm?: { organizationId?: unknown } };

const commerceLabel = (settings: SavedSides) => `${settings.commerce?.organizationId} at ${settings.commerce?.baseUrl}`;

/**
 * What changed organization between the saved settings and the ones about to be saved: the commerce
 * organization (its id or the API base URL) and the Salesforce org the credentials reached (`crmOrganizationId`,
 * from verifyConnection). A connection saved before org ids were kept has none to compare: it adopts the
 * verified one without a change.
 */
export function organizationChanges(saved: unknown, next: ConnectionSettings, crmOrganizationId: string | undefined): OrganizationChange[] {
  const before = saved as SavedSides | undefined;
  const changes: OrganizationChange[] = [];
  const savedCommerce = commerceOrganizationKey(before);
  if (savedCommerce !== undefined && savedCommerce !== commerceOrganizationKey(next)) changes.push({ side: 'commerce', saved: commerceLabel(before!), now: commerceLabel(next) });
  const savedCrm = before?.crm?.organizationId;
  if (typeof savedCrm === 'string' && crmOrganizationId && !sameSalesforceOrg(savedCrm, crmOrganizationId)) {
    changes.push({ side: 'crm', saved: savedCrm, now: crmOrganizationId, ...(next.crm.kind !== 'salesforce' && { crmName: CRM_NAMES[next.crm.kind] }) });
  }
  return changes;
}

/** Salesforce ids come in 15 (case-sensitive) and 18 characters: the first 15 name the org. */
function sameSalesforceOrg(a: string, b: string): boolean {
  return a.slice(0, 15) === b.slice(0, 15);
}

/** Refusal to save a connection whose side reaches another organization, unless the user starts afresh. */
export class OrganizationChangedError extends Error {
  override name = 'OrganizationChangedError';
  readonly changes: OrganizationChange[];
  constructor(connectionName: string, changes: OrganizationChange[], command: 'connect' | 'edit') {
    const lines = changes.map((change) =>
      change.side === 'commerce'
        ? `commerce: it was saved for organization ${change.saved}; now it names organization ${change.now}`
        : `${change.crmName ?? 'Salesforce'}: it was saved with ${change.crmName === 'HubSpot' ? 'account' : 'org'} ${change.saved}; these credentials reach ${change.crmName === 'HubSpot' ? 'account' : 'org'} ${change.now}`,
    );
    super(
      `The connection ${connectionName} was not changed: it would now sync another organization.\n- ${lines.join('\n- ')}\n` +
        `Its record links, cursors and dead letters belong to the old organization: kept, records the new one lacks would never be written ` +
        `there, and stale CRM ids could update the wrong records.\n` +
        `To sync the new organization from the beginning, run the same crm-sync ${command} again with --start-afresh ` +
        `(forgets this connection's record links, cursors and open dead letters; the next sync writes every record again). ` +
        (command === 'connect' ? 'To keep both, connect the new organization under another --name.' : 'To keep the old organization, give credentials that reach it.'),
    );
    this.changes = changes;
  }
}
