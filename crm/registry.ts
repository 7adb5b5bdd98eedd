// One connector factory per CRM kind: the runtime and `connect`'s checks look the connection's kind up
// here instead of naming a CRM. Adding a CRM is adding its connector, its settings member
// (sync/connection-settings.ts) and its mappings in the flows' declarations.
import { FLOWS } from '../flows/index.ts';
import type { Entity, EntityMapping } from '../mappings/types.ts';
import type { ConnectionSecrets, ConnectionSettings, CrmSettings } from '../sync/connection-settings.ts';
import type { CrmConnector, CrmKind, SecretsVault } from './connector.ts';
import { entitlementToLineItem } from '../mappings/hubspot/entitlement.ts';
import { renewalToHubSpotDealOnLineItems } from '../mappings/hubspot/renewal.ts';
import { usageSummaryToLineItem } from '../mappings/hubspot/usage-summary.ts';
import { createDynamicsConnector } from './dynamics/connector.ts';
import { createHubSpotConnector } from './hubspot/connector.ts';
import { createSalesforceConnector } from './salesforce/connector.ts';

/** `refreshTokens`: where a rotated Salesforce refresh token goes (sync/refresh-token-handover.ts). */
type Tuning = { lookbackSeconds?: number; refreshTokens?: SecretsVault };
type Factory<K extends CrmSettings['kind']> = (settings: Extract<CrmSettings, { kind: K }>, secrets: ConnectionSecrets, tuning: Tuning) => CrmConnector;

const CONNECTORS: { [K in CrmSettings['kind']]?: Factory<K> } = {
  salesforce: (crm, secrets, tuning) =>
    createSalesforceConnector(
      { loginUrl: crm.loginUrl, apiVersion: crm.apiVersion, bulkThreshold: crm.bulkThreshold, reservedShare: crm.reservedShare, lookbackSeconds: tuning.lookbackSeconds },
      { clientId: crm.clientId, clientSecret: requiredSecret(secrets.crmClientSecret, 'the connected app\'s client secret'), refreshToken: secrets.crmRefreshToken, refreshTokens: tuning.refreshTokens },
    ),
  hubspot: (crm, secrets, tuning) => createHubSpotConnector(crm, secrets, tuning),
  dynamics: (crm, secrets, tuning) => createDynamicsConnector(crm, secrets, tuning),
};

/** Per CRM kind, mappings a connection's CRM settings choose instead of a flow's default one. */
const MAPPING_CHOICES: { [K in CrmSettings['kind']]?: (crm: Extract<CrmSettings, { kind: K }>) => Partial<Record<Entity, EntityMapping<any, any>>> } = {
  // An account without custom objects keeps entitlements as line items on the offer's deal.
  // Its renewal deals then name their entitlements as text, with no association to the custom object it lacks.
  hubspot: (crm) => (crm.entitlementObject === 'line_items' ? { entitlement: entitlementToLineItem, renewal: renewalToHubSpotDealOnLineItems, 'usage-summary': usageSummaryToLineItem } : {}),
};

export function createConnector(settings: ConnectionSettings, secrets: ConnectionSecrets, tuning: Tuning = {}): CrmConnector {
  const factory = CONNECTORS[settings.crm.kind] as Factory<CrmSettings['kind']> | undefined;
  if (!factory) throw new Error(`CRM kind ${settings.crm.kind} is not supported yet (supported: ${Object.keys(CONNECTORS).join(', ')})`);
  return factory(settings.crm, secrets, tuning);
}

/**
 * The mappings a CRM kind has, by flow; a flow without one for this kind does not run for it. With the
 * connection's CRM settings, the mappings they choose (e.g. HubSpot's entitlement fallback) replace the defaults.
 */
export function mappingsFor(kind: CrmKind, crm?: CrmSettings): Partial<Record<Entity, EntityMapping<any, any>>> {
  const defaults = Object.fromEntries(Object.entries(FLOWS).flatMap(([name, flow]) => (flow.mappings[kind] ? [[name, flow.mappings[kind]]] : [])));
  const choose = crm && crm.kind === kind ? (MAPPING_CHOICES[crm.kind] as ((settings: CrmSettings) => Partial<Record<Entity, EntityMapping<any, any>>>) | undefined) : undefined;
  return { ...defaults, ...choose?.(crm!) };
}

function requiredSecret(value: string | undefined, what: string): string {
  if (!value) throw new Error(`The connection's secrets lack ${what}: save it again with crm-sync connect`);
  return value;
}
