// Per-connection adjustments of a default mapping, applied after it (pure), and validated against the
// CRM's described schema before any write, so an unknown field or picklist value is reported by name
// instead of being discovered as a failed write. Order: picklist translation, disable, rename, constants.
import type { ObjectSchema } from '../crm/connector.ts';
import type { Entity, EntityMapping, MappedRecord, MappingResult, PicklistMap, UnknownValue } from './types.ts';

export type EntityOverrides = {
  /** Default CRM field -> the field it should fill instead (custom field API names differ per org). */
  rename?: Record<string, string>;
  /** Default CRM fields not to write at all. */
  disable?: string[];
  /** CRM field -> a value written on every record. */
  constants?: Record<string, unknown>;
  /** CRM field -> source value -> CRM value; merged over the mapping's defaults. */
  picklists?: Record<string, PicklistMap>;
};

export type MappingOverrides = Partial<Record<Entity, EntityOverrides>>;

export function applyMapping<S, R>(mapping: EntityMapping<S, R>, overrides: EntityOverrides | undefined, source: S, related: R): MappingResult {
  const result = mapping.map(source, related);
  if (!result.ok) return result;
  const fields = { ...result.record.fields };
  const unknown: UnknownValue[] = [];
  for (const [field, defaults] of Object.entries(mapping.picklists)) {
    if (!(field in fields) || fields[field] === null || fields[field] === undefined) continue;
    const table = { ...defaults, ...overrides?.picklists?.[field] };
    const sourceValue = String(fields[field]);
    if (!Object.hasOwn(table, sourceValue)) {
      // A value the map does not know (§9.5: the service may add statuses) never stops the record: the
      // field keeps the CRM's last known value, the raw value goes where the mapping writes it as text
      // (Offer_Status__c and its equivalents), and the caller counts it and says so once.
      delete fields[field];
      const fallback = mapping.unknownOnCreate;
      unknown.push({ field, value: sourceValue, ...(fallback !== undefined && Object.hasOwn(table, fallback) && { onCreate: table[fallback] }) });
      continue;
    }
    fields[field] = table[sourceValue];
  }
  for (const field of overrides?.disable ?? []) delete fields[field];
  for (const [from, to] of Object.entries(overrides?.rename ?? {})) {
    if (!(from in fields)) continue;
    fields[to] = fields[from];
    delete fields[from];
  }
  Object.assign(fields, overrides?.constants);
  const record: MappedRecord = { ...result.record, fields };
  return unknown.length ? { ok: true, record, unknown } : { ok: true, record };
}

/** Every problem, each naming the field or value, or [] when the mapping fits the described schema. */
export function validateMapping(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined, schema: ObjectSchema): string[] {
  const problems: string[] = [];
  const where = (field: string) => `${schema.name}.${field}`;
  const defaultFields = Object.keys(mapping.describe);
  const fieldOrRelationship = (name: string) =>
    schema.fields.get(name) ?? [...schema.fields.values()].find((field) => field.relationshipName === name);

  for (const field of overrides?.disable ?? []) {
    if (!defaultFields.includes(field)) problems.push(`disable names ${where(field)}, which the default ${mapping.entity} mapping does not write`);
  }
  for (const [from, to] of Object.entries(overrides?.rename ?? {})) {
    if (!defaultFields.includes(from)) problems.push(`rename names ${where(from)}, which the default ${mapping.entity} mapping does not write`);
    if (!fieldOrRelationship(to)) problems.push(`rename of ${from}: ${schema.name} has no field '${to}'`);
  }
  const renamed = (field: string) => overrides?.rename?.[field] ?? field;
  // Renamed targets were checked above; each missing field is reported once.
  const written = defaultFields.filter((field) => !overrides?.disable?.includes(field) && !overrides?.rename?.[field]);
  for (const field of [mapping.externalIdField, ...written]) {
    const described = fieldOrRelationship(field);
    if (!described) {
      // An optional field the org lacks is left out of every record (fit-to-schema.ts): nothing to report.
      if (!mapping.optionalFields?.includes(field)) problems.push(`${schema.name} has no field '${field}' (written by the ${mapping.entity} mapping)`);
    } else if (described.name === field && !described.createable && !described.updateable) problems.push(`${where(field)} is read-only`);
  }
  const externalId = schema.fields.get(mapping.externalIdField);
  if (externalId && !externalId.externalId) problems.push(`${where(mapping.externalIdField)} is not an external id field`);
  // Upserts key on it: a CRM that says it does not keep it unique could hold two records for one commerce
  // record (a CRM that does not say is given the benefit of the doubt).
  else if (externalId && externalId.unique === false) {
    problems.push(`${mapping.externalIdField} on ${schema.name} is an external id but not unique: two records could share one commerce id; mark it Unique in Setup`);
  }
  for (const [field, value] of Object.entries(overrides?.constants ?? {})) {
    const described = schema.fields.get(field);
    if (!described) problems.push(`constant for ${schema.name}.${field}: no such field`);
    else if (described.restrictedPicklist && !described.picklistValues?.includes(String(value))) {
      problems.push(`constant ${JSON.stringify(value)} is not a value of the restricted picklist ${where(field)}`);
    }
  }
  for (const [field, defaults] of Object.entries(mapping.picklists)) {
    const target = renamed(field);
    const described = schema.fields.get(target);
    if (!described || overrides?.disable?.includes(field)) continue;
    const table = { ...defaults, ...overrides?.picklists?.[field] };
    for (const [sourceValue, crmValue] of Object.entries(table)) {
      if (described.picklistValues && !described.picklistValues.includes(crmValue)) {
        problems.push(`${JSON.stringify(crmValue)} (for ${sourceValue}) is not a value of the picklist ${where(target)}`);
      }
    }
  }
  for (const field of Object.keys(overrides?.picklists ?? {})) {
    if (!(field in mapping.picklists)) problems.push(`picklist map for ${where(field)}, which the ${mapping.entity} mapping does not fill from a status`);
  }
  return problems;
}
