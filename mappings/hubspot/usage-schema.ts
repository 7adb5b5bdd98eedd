// The usage custom object (issue #25 section 4): one record per entitlement, dimension and day, keyed by
// usage_key (entitlement|dimension|date), associated to its marketplace_entitlement. Declared like the
// entitlement's custom object (schema.ts ENTITLEMENT_SCHEMA).
import type { PropertyDeclaration } from './schema.ts';

export const USAGE_OBJECT = 'marketplace_usage';
export const USAGE_ID_PROPERTY = 'usage_key';

const text = (name: string, label: string, extra: Partial<PropertyDeclaration> = {}): PropertyDeclaration => ({ name, label, type: 'string', fieldType: 'text', ...extra });
const number = (name: string, label: string): PropertyDeclaration => ({ name, label, type: 'number', fieldType: 'number' });

/** Its properties beside the schema's own (the display and id properties). */
export const USAGE_PROPERTIES: PropertyDeclaration[] = [
  text('dimension', 'Dimension'),
  { name: 'usage_date', label: 'Usage Date', type: 'date', fieldType: 'date' },
  number('quantity', 'Quantity'),
  number('amount', 'Amount'),
  number('failed_reports', 'Failed Reports'),
];

/** The entitlement's usage so far, on the entitlement's custom object (mappings/hubspot/usage-summary.ts). */
export const USAGE_SUMMARY_PROPERTIES: PropertyDeclaration[] = [
  number('usage_amount', 'Usage Amount'),
  number('commit_burn_down_percent', 'Commit Burn Down (%)'),
  { name: 'last_usage_date', label: 'Last Usage Date', type: 'date', fieldType: 'date' },
  number('failed_usage_reports', 'Failed Usage Reports'),
];

/** POST /crm-object-schemas/v3/schemas (ObjectSchemaEgg), as for the entitlement. */
export const USAGE_SCHEMA = {
  name: USAGE_OBJECT,
  labels: { singular: 'Marketplace usage', plural: 'Marketplace usage' },
  description: 'A day of usage of one entitlement and billing dimension on a marketplace (set by commerce-crm-sync)',
  primaryDisplayProperty: 'usage_name',
  requiredProperties: [] as string[],
  searchableProperties: ['usage_name', USAGE_ID_PROPERTY],
  secondaryDisplayProperties: [] as string[],
  associatedObjects: [] as string[],
  properties: [text('usage_name', 'Usage Name'), text(USAGE_ID_PROPERTY, 'Usage Key', { hasUniqueValue: true, description: 'entitlement|dimension|date on the Marketplace Commerce Service (set by commerce-crm-sync)' })],
};
