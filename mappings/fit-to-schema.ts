// A mapping as one org can take it: the optional fields (EntityMapping.optionalFields) its described
// object lacks are left out of every record it maps. Where the org has them all, the mapping is used as
// it is. One rule for every CRM and entity, so no mapping asks "does this org have it?" itself.
import type { CrmConnector, ObjectSchema } from '../crm/connector.ts';
import type { EntityMapping } from './types.ts';

/** The optional fields of `mapping` that `schema` lacks. */
export function absentOptionalFields(mapping: EntityMapping<any, any>, schema: ObjectSchema): string[] {
  return (mapping.optionalFields ?? []).filter((name) => !schema.fields.has(name));
}

export function fitToSchema<S, R>(mapping: EntityMapping<S, R>, schema: ObjectSchema): EntityMapping<S, R> {
  const absent = absentOptionalFields(mapping, schema);
  if (absent.length === 0) return mapping;
  const keep = ([name]: [string, unknown]) => !absent.includes(name);
  return {
    ...mapping,
    describe: Object.fromEntries(Object.entries(mapping.describe).filter(keep)),
    optionalFields: mapping.optionalFields!.filter((name) => !absent.includes(name)),
    map(source, related) {
      const result = mapping.map(source, related);
      return result.ok ? { ok: true, record: { ...result.record, fields: Object.fromEntries(Object.entries(result.record.fields).filter(keep)) } } : result;
    },
  };
}

/**
 * The mapping fitted to the connection's org. Only a mapping with optional fields describes its object
 * (the connector keeps describes, so this is one call per object and connection, not one per page).
 */
export async function fittedMapping<S, R>(crm: Pick<CrmConnector, 'describe'>, mapping: EntityMapping<S, R>): Promise<EntityMapping<S, R>> {
  if (!mapping.optionalFields?.length) return mapping;
  return fitToSchema(mapping, await crm.describe(mapping.object));
}
