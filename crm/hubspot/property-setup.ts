// The commerce property group and the project's properties on a HubSpot object, made where missing and
// checked where present (type, unique values, enumeration options): what `crm-sync setup` does for every
// object it writes (setup.ts) and for products (catalogue-setup.ts). Safe to run twice.
import { PROPERTY_GROUP, PROPERTY_GROUP_LABEL, type PropertyDeclaration } from '../../mappings/hubspot/schema.ts';
import { missingScopes } from './object-types.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';

/** What setup did: made, found, and what a person must fix. */
type Report = { created: string[]; present: string[]; problems: string[] };

/** A HubSpot refusal for want of a scope, with where to add it. */
export const scopeProblem = (what: string, scopes: string[]) =>
  `${what}: the app lacks the scope ${scopes.join(' or ')}. Add it (a private app: Settings, Integrations, Private apps, its Scopes; an OAuth app: its scopes, then install it again) and run setup again`;

/** The commerce property group on `object`, created where missing; false when it is not there (a problem says why). */
export async function ensureGroup(transport: HubSpotTransport, object: string, apiName: string, report: Report): Promise<boolean> {
  const where = `${object} property group "${PROPERTY_GROUP}"`;
  const groups = (await transport.call(`reading the property groups of ${object}`, (client) => client.crm.properties.groupsApi.getAll(apiName))).results;
  if (groups.some((group) => group.name === PROPERTY_GROUP)) {
    report.present.push(where);
    return true;
  }
  try {
    await transport.call(`creating the ${where}`, (client) => client.crm.properties.groupsApi.create(apiName, { name: PROPERTY_GROUP, label: PROPERTY_GROUP_LABEL, displayOrder: -1 }));
    report.created.push(where);
    return true;
  } catch (error) {
    if (!(error instanceof HubSpotCallError)) throw error;
    if (error.info.status === 409) {
      report.present.push(where);
      return true;
    }
    const scopes = missingScopes(error);
    report.problems.push(scopes ? scopeProblem(`${where} could not be created`, scopes) : `${where} could not be created, so neither could ${object}'s properties: ${error.info.message}`);
    return false;
  }
}

/** The declared options of an enumeration an existing property lacks, by internal value (what records hold). */
function missingOptions(declaration: PropertyDeclaration, found: { options?: { value: string }[] }) {
  if (declaration.type !== 'enumeration' || !declaration.options) return [];
  const values = new Set((found.options ?? []).map((option) => option.value));
  return declaration.options.filter((option) => !values.has(option.value));
}

export async function ensureProperties(transport: HubSpotTransport, object: string, apiName: string, declarations: PropertyDeclaration[], report: Report): Promise<void> {
  const existing = new Map((await transport.call(`reading the properties of ${object}`, (client) => client.crm.properties.coreApi.getAll(apiName))).results.map((property) => [property.name, property]));
  for (const declaration of declarations) {
    const where = `${object}.${declaration.name}`;
    const found = existing.get(declaration.name);
    if (found) {
      if (found.type !== declaration.type) report.problems.push(`${where} exists as a ${found.type} property; the sync writes it as ${declaration.type}: change or rename it in HubSpot`);
      else if (declaration.hasUniqueValue && !found.hasUniqueValue) report.problems.push(`${where} exists without unique values; the sync writes by it as a key, so it must be a unique-value property: recreate it with "Require unique values"`);
      else if (missingOptions(declaration, found).length) {
        const missing = missingOptions(declaration, found);
        report.problems.push(
          `${where} exists without the option${missing.length > 1 ? 's' : ''} ${missing.map((o) => `"${o.label}" (internal value ${o.value})`).join(', ')}: add ${missing.length > 1 ? 'them' : 'it'} to the property in HubSpot (Settings, Properties), with exactly that internal value`,
        );
      } else report.present.push(where);
      continue;
    }
    try {
      await transport.call(`creating the property ${where}`, (client) =>
        client.crm.properties.coreApi.create(apiName, {
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
