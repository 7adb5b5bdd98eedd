// `crm-sync setup` for HubSpot's product library (issue #28): the commerce property group on products and
// the properties that tie a HubSpot product to one commerce product dimension: commerce_product_id,
// commerce_dimension_key and commerce_price_key ("productId|dimensionKey", the catalogue's key).
// HubSpot keeps unique-value properties for contacts, companies, deals, tickets and custom objects, not
// products (docs/crm-wire-behaviour.md, HubSpot "Products and line items"): the key is a plain property,
// so products cannot be upserted by it; the sync finds products by searching commerce_price_key (IN, the
// keys lowercased, up to a hundred a search and 3,000 characters a body: crm/hubspot/search.ts whereIn),
// then creates or updates each by its HubSpot id. Safe to run twice: what exists is left as it is, and a
// property of another type is a problem, never changed.
import type { PropertyDeclaration } from '../../mappings/hubspot/schema.ts';
import { missingScopes } from './object-types.ts';
import { ensureGroup, ensureProperties, scopeProblem } from './property-setup.ts';
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

/** The commerce group and catalogue properties on products, made where missing; what was done goes in `report`. */
export async function setUpHubSpotCatalogue(transport: HubSpotTransport, report: Report): Promise<void> {
  try {
    if (await ensureGroup(transport, PRODUCT_OBJECT, PRODUCT_OBJECT, report)) await ensureProperties(transport, PRODUCT_OBJECT, PRODUCT_OBJECT, [...CATALOGUE_PRODUCT_PROPERTIES], report);
  } catch (error) {
    // Reading products' groups or properties refused (a token without the products scopes): a problem naming it, the rest of setup goes on.
    const scopes = missingScopes(error);
    if (scopes) report.problems.push(scopeProblem("products: HubSpot refused to read the products' properties", scopes));
    else if (error instanceof HubSpotCallError) report.problems.push(`products: HubSpot refused to read the products' properties: ${error.info.message}`);
    else throw error;
  }
}
