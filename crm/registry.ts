// One connector factory per CRM kind: the runtime and `connect`'s checks look the connection's kind up
// here instead of naming a CRM. Adding a CRM is adding its connector, its settings member
// (sync/connection-settings.ts) and its mappings in the flows' declarations.
import { FLOWS } from '../flows/index.ts';
import type { Entity, EntityMapping } from '../mappings/types.ts';
import type { ConnectionSecrets, ConnectionSettings, CrmSettings } from '../sync/connection-settings.ts';
import type { CrmConnector, CrmKind } from './connector.ts';
import { createSalesforceConnector } from './salesforce/connector.ts';

type Tuning = { lookbackSeconds?: number };
type Factory<K extends CrmSettings['kind']> = (settings: Extract<CrmSettings, { kind: K }>, secrets: ConnectionSecrets, tuning: Tuning) => CrmConnector;

const CONNECTORS: { [K in CrmSettings['kind']]?: Factory<K> } = {
  salesforce: (crm, secrets, tuning) =>
    createSalesforceConnector(
      { loginUrl: crm.loginUrl, apiVersion: crm.apiVersion, bulkThreshold: crm.bulkThreshold, reservedShare: crm.reservedShare, lookbackSeconds: tuning.lookbackSeconds },
      { clientId: crm.clientId, clientSecret: requiredSecret(secrets.crmClientSecret, 'the connected app\'s client secret'), refreshToken: secrets.crmRefreshToken },
    ),
};

export function createConnector(settings: ConnectionSettings, secrets: ConnectionSecrets, tuning: Tuning = {}): CrmConnector {
  const factory = CONNECTORS[settings.crm.kind] as Factory<CrmSettings['kind']> | undefined;
  if (!factory) throw new Error(`CRM kind ${settings.crm.kind} is not supported yet (supported: ${Object.keys(CONNECTORS).join(', ')})`);
  return factory(settings.crm, secrets, tuning);
}

/** The mappings a CRM kind has, by flow; a flow without one for this kind does not run for it. */
export function mappingsFor(kind: CrmKind): Partial<Record<Entity, EntityMapping<any, any>>> {
  return Object.fromEntries(Object.entries(FLOWS).flatMap(([name, flow]) => (flow.mappings[kind] ? [[name, flow.mappings[kind]]] : [])));
}

function requiredSecret(value: string | undefined, what: string): string {
  if (!value) throw new Error(`The connection's secrets lack ${what}: save it again with crm-sync connect`);
  return value;
}
