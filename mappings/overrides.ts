// Per-connection adjustments of a default mapping, applied after it (pure), and validated against the
// CRM's described schema before any write, so an unknown field or picklist value is reported by name
// instead of being discovered as a failed write. Order: canonical values mapped to fields (`map`),
// picklist translation, disable, rename, constants. `createOnly` and `sellerKeeps` add to the mapping's
// own lists (effectiveCreateOnly, effectiveSellerKeeps): the defaults stay, since a CRM may refuse to
// change a field after the record is made (Salesforce's CurrencyIsoCode on an Opportunity with products).
import type { ObjectSchema } from '../crm/connector.ts';
import { BUYER } from './canonical/buyer.ts';
import { CONTACT } from './canonical/contact.ts';
import { ENTITLEMENT } from './canonical/entitlement.ts';
import { LIVE_AGREEMENT } from './canonical/live-agreement.ts';
import { OFFER } from './canonical/offer.ts';
import type { CanonicalRecord } from './canonical/record.ts';
import { inboundReferral, REFERRAL } from './canonical/referral.ts';
import { RENEWAL } from './canonical/renewal.ts';
import { USAGE_SUMMARY } from './canonical/usage-summary.ts';
import { USAGE_DAY } from './canonical/usage.ts';
import { TIMELINE_ACTIVITY } from './canonical/timeline.ts';
import { CATALOGUE_PRICE, CATALOGUE_PRODUCT, CATALOGUE_STANDARD_PRICE } from './canonical/catalogue.ts';
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
  /** CRM field -> the canonical value it takes (CANONICAL_RECORDS[entity].describe names them): another source for a default field, or a field the default does not write. */
  map?: Record<string, string>;
  /** CRM fields written only when the record is made, besides the mapping's own. */
  createOnly?: string[];
  /** CRM fields whose value stays the seller's on a seller's own record, besides the mapping's own (EntityMapping.sellerKeeps). */
  sellerKeeps?: string[];
};

/**
 * Each flow's canonical record: the values a field can be mapped to. The inbound referral's words for
 * the account and opportunity only shape its refusal of a referral without a buyer, which the mapping
 * itself has already given by the time `map` is applied.
 */
export const CANONICAL_RECORDS: Record<Entity, CanonicalRecord<any, any, any>> = {
  buyer: BUYER,
  contact: CONTACT,
  offer: OFFER,
  entitlement: ENTITLEMENT,
  referral: REFERRAL,
  'inbound-referral': inboundReferral({ account: 'account', opportunity: 'opportunity' }),
  usage: USAGE_DAY,
  renewal: RENEWAL,
  'usage-summary': USAGE_SUMMARY,
  'live-agreement': LIVE_AGREEMENT,
  timeline: TIMELINE_ACTIVITY,
  catalogue: CATALOGUE_PRODUCT,
  'catalogue-standard-price': CATALOGUE_STANDARD_PRICE,
  'catalogue-price': CATALOGUE_PRICE,
};

/** The fields written only on create: the mapping's and the overrides'. */
export function effectiveCreateOnly(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined): string[] {
  return [...new Set([...(mapping.createOnly ?? []), ...(overrides?.createOnly ?? [])])];
}

/** The fields that stay the seller's on a seller's own record: the mapping's and the overrides'. */
export function effectiveSellerKeeps(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined): string[] {
  return [...new Set([...(mapping.sellerKeeps ?? []), ...(overrides?.sellerKeeps ?? [])])];
}

/** The picklist-translated fields: the mapping's, and fields given by `map` with a picklist map of their own. */
function picklistTables(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined): [string, PicklistMap][] {
  const mapped = Object.keys(overrides?.map ?? {}).filter((field) => !(field in mapping.picklists) && overrides?.picklists?.[field]);
  return [...Object.entries(mapping.picklists).map(([field, defaults]): [string, PicklistMap] => [field, { ...defaults, ...overrides?.picklists?.[field] }]), ...mapped.map((field): [string, PicklistMap] => [field, overrides!.picklists![field]!])];
}

export type MappingOverrides = Partial<Record<Entity, EntityOverrides>>;

export function applyMapping<S, R>(mapping: EntityMapping<S, R>, overrides: EntityOverrides | undefined, source: S, related: R): MappingResult {
  const result = mapping.map(source, related);
  if (!result.ok) return result;
  const fields = { ...result.record.fields };
  if (overrides?.map && Object.keys(overrides.map).length) {
    const computed = CANONICAL_RECORDS[mapping.entity].compute(source, related);
    if (!computed.ok) return { ok: false, reason: computed.reason };
    for (const [field, value] of Object.entries(overrides.map)) {
      // As in the default tables: a value the record does not have is not written (it never overwrites).
      if (computed.value[value] === undefined) delete fields[field];
      else fields[field] = computed.value[value];
    }
  }
  const unknown: UnknownValue[] = [];
  for (const [field, table] of picklistTables(mapping, overrides)) {
    if (!(field in fields) || fields[field] === null || fields[field] === undefined) continue;
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
  else if (externalId && externalId.unique === false && !mapping.keyNeedNotBeUnique) {
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
  const canonical = CANONICAL_RECORDS[mapping.entity];
  for (const [field, value] of Object.entries(overrides?.map ?? {})) {
    if (!Object.hasOwn(canonical.describe, value)) problems.push(`map of ${where(field)}: the ${mapping.entity} has no value '${value}' (it has: ${Object.keys(canonical.describe).join(', ')})`);
    const described = schema.fields.get(field);
    if (!described) problems.push(`map of ${value}: ${schema.name} has no field '${field}'`);
    else if (!described.createable && !described.updateable) problems.push(`map of ${value}: ${where(field)} is read-only`);
    if (overrides?.disable?.includes(field)) problems.push(`${where(field)} is both mapped to ${value} and disabled`);
  }
  for (const [field, table] of picklistTables(mapping, overrides)) {
    if (field in mapping.picklists) continue; // checked above, under its renamed name
    const described = schema.fields.get(field);
    for (const [sourceValue, crmValue] of Object.entries(table)) {
      if (described?.picklistValues && !described.picklistValues.includes(crmValue)) problems.push(`${JSON.stringify(crmValue)} (for ${sourceValue}) is not a value of the picklist ${where(field)}`);
    }
  }
  for (const field of Object.keys(overrides?.picklists ?? {})) {
    if (!(field in mapping.picklists) && !overrides?.map?.[field]) problems.push(`picklist map for ${where(field)}, which the ${mapping.entity} mapping does not fill from a status`);
  }
  const writes = new Set([...Object.keys(mapping.describe).map(renamed), ...Object.keys(overrides?.map ?? {}), ...Object.keys(overrides?.constants ?? {})]);
  for (const [list, fields] of [['createOnly', overrides?.createOnly], ['sellerKeeps', overrides?.sellerKeeps]] as const) {
    for (const field of fields ?? []) {
      if (!writes.has(field)) problems.push(`${list} names ${where(field)}, which the ${mapping.entity} mapping does not write`);
    }
  }
  return problems;
}
