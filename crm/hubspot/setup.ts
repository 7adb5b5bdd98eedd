// `crm-sync setup` for HubSpot: creates what the project needs in the account and is missing (the
// properties and deal pipelines of mappings/hubspot/schema.ts) and says what it did. Safe to run twice:
// what exists is left as it is; an existing property of another type, or without the unique flag an id
// property needs, is reported as a problem, never changed. An account without custom objects (HubSpot
// answers "Unable to infer object type" for marketplace_entitlement) gets the documented fallback:
// entitlements as line items on the offer's deal.
import {
  ENTITLEMENT_FALLBACK_OBJECT,
  ENTITLEMENT_OBJECT,
  HUBSPOT_PIPELINES,
  HUBSPOT_PROPERTIES,
  PROPERTY_GROUP,
  type PropertyDeclaration,
} from '../../mappings/hubspot/schema.ts';
import type { HubSpotCredentials } from './auth.ts';
import { createHubSpotTransport, HubSpotCallError, type HubSpotTransport } from './transport.ts';

export type SetupReport = {
  created: string[];
  present: string[];
  problems: string[];
  /** Where entitlements go in this account. */
  entitlementObject: typeof ENTITLEMENT_OBJECT | typeof ENTITLEMENT_FALLBACK_OBJECT;
};

export type SetupTarget = { baseUrl: string; accessToken: string } | { baseUrl: string; credentials: HubSpotCredentials };

export async function setUpHubSpot(target: SetupTarget): Promise<SetupReport> {
  const transport = createHubSpotTransport({ baseUrl: target.baseUrl, credentials: 'credentials' in target ? target.credentials : { auth: 'private-app', accessToken: target.accessToken } });
  const report: SetupReport = { created: [], present: [], problems: [], entitlementObject: ENTITLEMENT_OBJECT };

  const customObjects = await hasObject(transport, ENTITLEMENT_OBJECT);
  if (!customObjects) {
    report.entitlementObject = ENTITLEMENT_FALLBACK_OBJECT;
    report.present.push(`${ENTITLEMENT_OBJECT}: custom objects are not available on this account, so entitlements go to line items on the offer's deal (the documented fallback)`);
  }
  for (const [object, declarations] of Object.entries(HUBSPOT_PROPERTIES)) {
    if (object === ENTITLEMENT_OBJECT && !customObjects) continue;
    if (object === ENTITLEMENT_FALLBACK_OBJECT && customObjects) continue;
    await ensureProperties(transport, object, declarations, report);
  }
  await ensurePipelines(transport, report);
  return report;
}

async function hasObject(transport: HubSpotTransport, object: string): Promise<boolean> {
  try {
    await transport.call(`reading the properties of ${object}`, (client) => client.crm.properties.coreApi.getAll(object));
    return true;
  } catch (error) {
    if (error instanceof HubSpotCallError && (error.info.status === 400 || error.info.status === 404 || error.info.status === 403)) return false;
    throw error;
  }
}

async function ensureProperties(transport: HubSpotTransport, object: string, declarations: PropertyDeclaration[], report: SetupReport): Promise<void> {
  const existing = new Map((await transport.call(`reading the properties of ${object}`, (client) => client.crm.properties.coreApi.getAll(object))).results.map((property) => [property.name, property]));
  for (const declaration of declarations) {
    const where = `${object}.${declaration.name}`;
    const found = existing.get(declaration.name);
    if (found) {
      if (found.type !== declaration.type) report.problems.push(`${where} exists as a ${found.type} property; the sync writes it as ${declaration.type}: change or rename it in HubSpot`);
      else if (declaration.hasUniqueValue && !found.hasUniqueValue) report.problems.push(`${where} exists without unique values; the sync writes by it as a key, so it must be a unique-value property: recreate it with "Require unique values"`);
      else report.present.push(where);
      continue;
    }
    try {
      await transport.call(`creating the property ${where}`, (client) =>
        client.crm.properties.coreApi.create(object, {
          name: declaration.name,
          label: declaration.label,
          type: declaration.type as never,
          fieldType: declaration.fieldType as never,
          groupName: PROPERTY_GROUP,
          ...(declaration.hasUniqueValue && { hasUniqueValue: true }),
          ...(declaration.options && { options: declaration.options.map((option, index) => ({ ...option, displayOrder: index, hidden: false })) }),
          ...(declaration.description && { description: declaration.description }),
        }),
      );
      report.created.push(where);
    } catch (error) {
      // Made meanwhile (another setup run): present.
      if (error instanceof HubSpotCallError && error.info.status === 409) report.present.push(where);
      else if (error instanceof HubSpotCallError) report.problems.push(`${where} could not be created: ${error.info.message}`);
      else throw error;
    }
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
