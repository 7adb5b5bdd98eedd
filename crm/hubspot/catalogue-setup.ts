// `crm-sync setup` for HubSpot's product library (issue #28): the commerce property group on products and
// the properties that tie a HubSpot product to one commerce product dimension: commerce_product_id,
// commerce_dimension_key and commerce_price_key ("productId|dimensionKey", the catalogue's key).
// HubSpot keeps unique-value properties for contacts, companies, deals, tickets and custom objects, not
// products (docs/crm-wire-behaviour.md, HubSpot "Products and line items"): the key is a plain property,
// so products cannot be upserted by it; the sync finds products by searching commerce_price_key (IN, up
// to a hundred keys a search: crm/hubspot/search.ts whereIn), then creates or updates each by its HubSpot id. Safe to run twice: what exists is left as it is, and a
// property of another type is a problem, never changed.
import { PROPERTY_GROUP, PROPERTY_GROUP_LABEL, type PropertyDeclaration } from '../../mappings/hubspot/schema.ts';
import { missingScopes } from './object-types.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';

type Report = { created: string[]; present: string[]; problems: string[] };

export const PRODUCT_OBJECT = 'products';

/** The product properties the catalogue sync writes; none unique (HubSpot refuses that on products). */
export const CATALOGUE_PRODUCT_PROPERTIES: readonly PropertyDeclaration[] = [
  { name: 'commerce_product_id', label: 'Commerce product id', type: 'string', fieldType: 'text', description: 'The marketplace product this HubSpot product prices one dimension of.' },
  { name: 'commerce_dimension_key', label: 'Commerce dimension key', type: 'string', fieldType: 'text', description: "The product dimension (the commerce side's dimension key) this product prices." },
  {
    name: 'commerce_price_key',
    label: 'Commerce price key',
    type: 'string',
    fieldType: 'text',
    description: 'productId|dimensionKey: one HubSpot product per commerce product dimension, found by this key. Do not edit.',
  },
];

const scopeProblem = (what: string, scopes: string[]) =>
  `${what}: the app lacks the scope ${scopes.join(' or ')}. Add it (a private app: Settings, Integrations, Private apps, its Scopes; an OAuth app: its scopes, then install it again) and run setup again`;

/** The commerce group and catalogue properties on products, made where missing; what was done goes in `report`. */
export async function setUpHubSpotCatalogue(transport: HubSpotTransport, report: Report): Promise<void> {
  if (!(await ensureProductGroup(transport, report))) return;
  let existing;
  try {
    existing = new Map((await transport.call('reading the properties of products', (client) => client.crm.properties.coreApi.getAll(PRODUCT_OBJECT))).results.map((property) => [property.name, property]));
  } catch (error) {
    const scopes = missingScopes(error);
    if (scopes) report.problems.push(scopeProblem("products: HubSpot refused to read the products' properties", scopes));
    else if (error instanceof HubSpotCallError) report.problems.push(`products: HubSpot refused to read the products' properties: ${error.info.message}`);
    else throw error;
    return;
  }
  for (const declaration of CATALOGUE_PRODUCT_PROPERTIES) {
    const where = `${PRODUCT_OBJECT}.${declaration.name}`;
    const found = existing.get(declaration.name);
    if (found) {
      if (found.type !== declaration.type) report.problems.push(`${where} exists as a ${found.type} property; the sync writes it as ${declaration.type}: change or rename it in HubSpot`);
      else report.present.push(where);
      continue;
    }
    try {
      await transport.call(`creating the property ${where}`, (client) =>
        client.crm.properties.coreApi.create(PRODUCT_OBJECT, {
          name: declaration.name,
          label: declaration.label,
          type: declaration.type as never,
          fieldType: declaration.fieldType as never,
          groupName: PROPERTY_GROUP,
          ...(declaration.description && { description: declaration.description }),
        }),
      );
      report.created.push(where);
    } catch (error) {
      if (error instanceof HubSpotCallError && error.info.status === 409) report.present.push(where); // made meanwhile
      else if (error instanceof HubSpotCallError) report.problems.push(`${where} could not be created: ${error.info.message}`);
      else throw error;
    }
  }
}

async function ensureProductGroup(transport: HubSpotTransport, report: Report): Promise<boolean> {
  const where = `${PRODUCT_OBJECT} property group "${PROPERTY_GROUP}"`;
  try {
    const groups = (await transport.call('reading the property groups of products', (client) => client.crm.properties.groupsApi.getAll(PRODUCT_OBJECT))).results;
    if (groups.some((group) => group.name === PROPERTY_GROUP)) {
      report.present.push(where);
      return true;
    }
    await transport.call(`creating the ${where}`, (client) => client.crm.properties.groupsApi.create(PRODUCT_OBJECT, { name: PROPERTY_GROUP, label: PROPERTY_GROUP_LABEL, displayOrder: -1 }));
    report.created.push(where);
    return true;
  } catch (error) {
    if (!(error instanceof HubSpotCallError)) throw error;
    if (error.info.status === 409) {
      report.present.push(where);
      return true;
    }
    const scopes = missingScopes(error);
    report.problems.push(scopes ? scopeProblem(`${where} could not be created`, scopes) : `${where} could not be created, so neither could the products' commerce properties: ${error.info.message}`);
    return false;
  }
}
