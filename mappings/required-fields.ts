// Fields an org requires on create that a mapping leaves empty. A CRM admin can make any field required
// (Salesforce: a custom field with `required: true`, described nillable false, not defaulted on create);
// every create that leaves it out then fails (REQUIRED_FIELD_MISSING), record after record, long after
// `connect` said the mapping fits. Checked up front, CRM-neutral, from the describe's `required` flag.
import type { FieldSchema, ObjectSchema } from '../crm/connector.ts';
import type { EntityOverrides } from './overrides.ts';
import type { EntityMapping } from './types.ts';

// A record's own id and its owner are filled by the CRM itself (Salesforce Id; Dataverse's primary key
// and ownerid, which default to the caller) whatever the describe says.
const FILLED_BY_THE_CRM = new Set(['id', 'uniqueidentifier', 'owner']);

/** One sentence per required field of `schema` that the mapping, with the connection's overrides, does not fill. */
export function unfilledRequiredFields(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined, schema: ObjectSchema, crmName = 'the CRM'): string[] {
  const filled = new Set<string>([mapping.externalIdField]);
  for (const field of Object.keys(mapping.describe)) {
    if (overrides?.disable?.includes(field)) continue;
    filled.add(overrides?.rename?.[field] ?? field);
  }
  for (const field of Object.keys(overrides?.constants ?? {})) filled.add(field);
  // A field the connection maps a canonical value into (overrides.map) is filled too.
  for (const field of Object.keys(overrides?.map ?? {})) filled.add(field);
  // A mapping may fill a lookup by its relationship name (Account__r: {key}): that fills the lookup field.
  const fills = (field: FieldSchema) => filled.has(field.name) || (field.relationshipName !== undefined && filled.has(field.relationshipName));
  return [...schema.fields.values()]
    .filter((field) => field.required && field.createable && !FILLED_BY_THE_CRM.has(field.type.toLowerCase()) && !fills(field))
    .map(
      (field) =>
        `${schema.name}.${field.name} is required in this org and the mapping does not fill it: give it a default in ${crmName}, make it optional, or map a value to it (overrides)`,
    );
}
