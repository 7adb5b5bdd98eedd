// `crm-sync setup` for HubSpot: creates what the project needs in the account and is missing (the
// custom object marketplace_entitlement, the commerce property group on each object, the properties and
// deal pipelines of mappings/hubspot/schema.ts) and says what it did. Safe to run twice: what exists is
// left as it is; an existing property of another type, or without the unique flag an id property needs,
// is reported as a problem, never changed.
// The custom object is found in the account's schemas (GET /crm-object-schemas/v3/schemas) or created
// (POST), and its objectTypeId reported, since API paths name it by that (crm/hubspot/object-types.ts).
// Only an account HubSpot refuses a custom object for lack of an Enterprise subscription (a 403 that is
// not MISSING_SCOPES) gets the documented fallback: entitlements as line items on the offer's deal. A
// token without the schemas scopes is a problem setup names, never a reason to fall back.
import {
  ENTITLEMENT_FALLBACK_OBJECT,
  ENTITLEMENT_OBJECT,
  ENTITLEMENT_SCHEMA,
  HUBSPOT_PIPELINES,
  HUBSPOT_PROPERTIES,
} from '../../mappings/hubspot/schema.ts';
import type { HubSpotCredentials } from './auth.ts';
import { setUpHubSpotCatalogue } from './catalogue-setup.ts';
import { ensureGroup, ensureProperties, scopeProblem } from './property-setup.ts';
import { missingScopes, readCustomObjects } from './object-types.ts';
import { USAGE_OBJECT, USAGE_PROPERTIES, USAGE_SUMMARY_PROPERTIES } from '../../mappings/hubspot/usage-schema.ts';
import { ensureUsageObject } from './usage-setup.ts';
import { createHubSpotTransport, HubSpotCallError, type HubSpotTransport } from './transport.ts';

export type SetupReport = {
  created: string[];
  present: string[];
  problems: string[];
  /** Where entitlements go in this account; absent when setup could not tell (its problems say why). */
  entitlementObject?: typeof ENTITLEMENT_OBJECT | typeof ENTITLEMENT_FALLBACK_OBJECT;
  /** The custom object's objectTypeId (2-...), when entitlements go to it. */
  entitlementObjectTypeId?: string;
};

type EntitlementTarget = { object: typeof ENTITLEMENT_OBJECT; objectTypeId: string } | { object: typeof ENTITLEMENT_FALLBACK_OBJECT };

export type SetupTarget = { baseUrl: string; accessToken: string } | { baseUrl: string; credentials: HubSpotCredentials };

/** `catalogue`: the connection syncs the product catalogue (issue #28): the product properties it keys on (catalogue-setup.ts). */
export type SetupOptions = { catalogue?: boolean };

export async function setUpHubSpot(target: SetupTarget, options: SetupOptions = {}): Promise<SetupReport> {
  const transport = createHubSpotTransport({ baseUrl: target.baseUrl, credentials: 'credentials' in target ? target.credentials : { auth: 'private-app', accessToken: target.accessToken } });
  const report: SetupReport = { created: [], present: [], problems: [] };

  const entitlements = await ensureEntitlementObject(transport, report);
  if (entitlements) {
    report.entitlementObject = entitlements.object;
    if (entitlements.object === ENTITLEMENT_OBJECT) report.entitlementObjectTypeId = entitlements.objectTypeId;
  }
  for (const [object, declarations] of Object.entries(HUBSPOT_PROPERTIES)) {
    if ((object === ENTITLEMENT_OBJECT || object === ENTITLEMENT_FALLBACK_OBJECT) && entitlements?.object !== object) continue;
    // API paths name the custom object by its objectTypeId; reports by its name.
    const apiName = entitlements?.object === ENTITLEMENT_OBJECT && object === ENTITLEMENT_OBJECT ? entitlements.objectTypeId : object;
    if (await ensureGroup(transport, object, apiName, report)) await ensureProperties(transport, object, apiName, declarations, report);
  }
  // Usage by day (issue #25 section 4): a custom object beside the entitlement's, where that is one.
  const usage = entitlements?.object === ENTITLEMENT_OBJECT ? await ensureUsageObject(transport, report, entitlements.objectTypeId) : undefined;
  if (usage && (await ensureGroup(transport, USAGE_OBJECT, usage, report))) await ensureProperties(transport, USAGE_OBJECT, usage, USAGE_PROPERTIES, report);
  if (usage && entitlements?.object === ENTITLEMENT_OBJECT) await ensureProperties(transport, ENTITLEMENT_OBJECT, entitlements.objectTypeId, USAGE_SUMMARY_PROPERTIES, report);
  // The fallback: an entitlement's usage summary on its line item (no usage object there).
  if (entitlements?.object === ENTITLEMENT_FALLBACK_OBJECT) await ensureProperties(transport, ENTITLEMENT_FALLBACK_OBJECT, ENTITLEMENT_FALLBACK_OBJECT, USAGE_SUMMARY_PROPERTIES, report);
  await ensurePipelines(transport, report);
  if (options.catalogue) await setUpHubSpotCatalogue(transport, report);
  return report;
}

/** Finds the custom object or creates it; line items only where HubSpot refuses custom objects to the account. */
async function ensureEntitlementObject(transport: HubSpotTransport, report: SetupReport): Promise<EntitlementTarget | undefined> {
  const find = async () => (await readCustomObjects(transport)).find((schema) => schema.name === ENTITLEMENT_OBJECT);
  let found;
  try {
    found = await find();
  } catch (error) {
    const scopes = missingScopes(error);
    if (scopes) report.problems.push(scopeProblem(`${ENTITLEMENT_OBJECT}: HubSpot refused to list the account's custom objects`, scopes));
    else if (error instanceof HubSpotCallError) report.problems.push(`${ENTITLEMENT_OBJECT}: HubSpot refused to list the account's custom objects: ${error.info.message}`);
    else throw error;
    return undefined;
  }
  if (found) {
    report.present.push(`${ENTITLEMENT_OBJECT} (custom object ${found.objectTypeId})`);
    return { object: ENTITLEMENT_OBJECT, objectTypeId: found.objectTypeId };
  }
  try {
    const made = await transport.call(`creating the custom object ${ENTITLEMENT_OBJECT}`, (client) => client.crm.schemas.coreApi.create(ENTITLEMENT_SCHEMA as never));
    const objectTypeId = made.objectTypeId ?? `2-${made.id}`;
    report.created.push(`${ENTITLEMENT_OBJECT} (custom object ${objectTypeId})`);
    return { object: ENTITLEMENT_OBJECT, objectTypeId };
  } catch (error) {
    if (!(error instanceof HubSpotCallError)) throw error;
    const scopes = missingScopes(error);
    if (scopes) {
      report.problems.push(scopeProblem(`${ENTITLEMENT_OBJECT}: HubSpot refused to create the custom object`, scopes));
      return undefined;
    }
    if (error.info.status === 409) {
      // Made meanwhile (another setup run).
      const made = await find();
      if (made) {
        report.present.push(`${ENTITLEMENT_OBJECT} (custom object ${made.objectTypeId})`);
        return { object: ENTITLEMENT_OBJECT, objectTypeId: made.objectTypeId };
      }
    }
    if (error.info.status === 403) {
      report.present.push(
        `${ENTITLEMENT_OBJECT}: HubSpot refused to create the custom object ("${error.info.message}"): custom objects come with HubSpot's Enterprise subscriptions, so entitlements go to line items on the offer's deal (the documented fallback)`,
      );
      return { object: ENTITLEMENT_FALLBACK_OBJECT };
    }
    report.problems.push(`${ENTITLEMENT_OBJECT}: HubSpot refused to create the custom object: ${error.info.message}`);
    return undefined;
  }
}

async function ensurePipelines(transport: HubSpotTransport, report: SetupReport): Promise<void> {
  const existing = (await transport.call('reading the deal pipelines', (client) => client.crm.pipelines.pipelinesApi.getAll('deals'))).results;
  for (const [order, declaration] of HUBSPOT_PIPELINES.entries()) {
    const where = `deal pipeline "${declaration.label}"`;
    const found = existing.find((pipeline) => pipeline.label === declaration.label);
    if (found) {
      const labels = new Set(found.stages.map((stage) => stage.label));
      const missing = declaration.stages.filter((stage) => !labels.has(stage.label)).map((stage) => `"${stage.label}"`);
      if (missing.length) report.problems.push(`${where} exists without the stage${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: add ${missing.length > 1 ? 'them' : 'it'} in HubSpot (Settings, Objects, Deals, Pipelines)`);
      else report.present.push(where);
      continue;
    }
    try {
      await transport.call(`creating the ${where}`, (client) =>
        client.crm.pipelines.pipelinesApi.create('deals', {
          label: declaration.label,
          displayOrder: existing.length + order + 1,
          stages: declaration.stages.map((stage, index) => ({
            label: stage.label,
            displayOrder: index,
            metadata: { probability: String(stage.probability), ...(stage.closed && { isClosed: 'true' }) },
          })),
        }),
      );
      report.created.push(where);
    } catch (error) {
      if (error instanceof HubSpotCallError && error.info.status === 409) report.present.push(where);
      else if (error instanceof HubSpotCallError) report.problems.push(`${where} could not be created: ${error.info.message}`);
      else throw error;
    }
  }
}
