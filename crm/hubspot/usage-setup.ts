// `crm-sync setup` for HubSpot's usage object (issue #25 section 4): the custom object marketplace_usage,
// found in the account's schemas or created, associated to the entitlement's custom object. Only where
// the entitlement is a custom object: an account HubSpot refuses custom objects has no usage object
// (there is no fallback for days of usage; the connection does not choose the usage flow there).
import { USAGE_OBJECT, USAGE_SCHEMA } from '../../mappings/hubspot/usage-schema.ts';
import { missingScopes, readCustomObjects } from './object-types.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';

type Report = { created: string[]; present: string[]; problems: string[] };

/** The usage object's objectTypeId, found or made; undefined when HubSpot refused (a problem says why). */
export async function ensureUsageObject(transport: HubSpotTransport, report: Report, entitlementObjectTypeId: string): Promise<string | undefined> {
  const find = async () => (await readCustomObjects(transport)).find((schema) => schema.name === USAGE_OBJECT);
  const found = await find();
  if (found) {
    report.present.push(`${USAGE_OBJECT} (custom object ${found.objectTypeId})`);
    return found.objectTypeId;
  }
  try {
    const made = await transport.call(`creating the custom object ${USAGE_OBJECT}`, (client) => client.crm.schemas.coreApi.create({ ...USAGE_SCHEMA, associatedObjects: [entitlementObjectTypeId] } as never));
    const objectTypeId = made.objectTypeId ?? `2-${made.id}`;
    report.created.push(`${USAGE_OBJECT} (custom object ${objectTypeId})`);
    return objectTypeId;
  } catch (error) {
    if (!(error instanceof HubSpotCallError)) throw error;
    if (error.info.status === 409) {
      const made = await find(); // made meanwhile (another setup run)
      if (made) return made.objectTypeId;
    }
    const scopes = missingScopes(error);
    report.problems.push(`${USAGE_OBJECT}: HubSpot refused to create the custom object: ${scopes ? `the app lacks the scope ${scopes.join(' or ')}` : error.info.message}`);
    return undefined;
  }
}
