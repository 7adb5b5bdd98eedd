// A flow's CRM-neutral record (issue #25 section 1): the values a commerce record gives a CRM, computed
// once per record, typed and tested once, whatever the CRM. A CRM mapping is then a field table: which
// of its fields takes which canonical value, plus that CRM's own conversions (a lookup by key, an
// option-set number, a pipeline), made into the EntityMapping the sync runs (mappings/types.ts), so
// overrides, picklists, create-only fields and the content hash work as before. Adding a value to every
// CRM is one canonical value and one line per CRM.
import type { Entity, EntityMapping, MappingResult } from '../types.ts';
import { fail, ok } from '../types.ts';
import { defined, UnparseableTimeError } from '../values.ts';

/** What a canonical computation answers: the record, or why the source cannot be mapped, for a person. */
export type Computed<C> = { ok: true; value: C } | { ok: false; reason: string };

export type CanonicalRecord<Source, Related, C> = {
  entity: Entity;
  /** The external id of the record (the commerce id), from the canonical record. */
  id(record: C): string;
  /** Where each canonical value comes from (the mappings' documentation is made from it). */
  describe: { [K in keyof C & string]: string };
  compute(source: Source, related: Related): Computed<C>;
};

/** A CRM field's value: a canonical value as it is, or a conversion of the record with its own description. */
export type FieldSource<C> = (keyof C & string) | { describe: string; value(record: C): unknown };
export type FieldTable<C> = Record<string, FieldSource<C>>;

/** The CRM fields of one canonical record: undefined values left out ("not known" never overwrites), null kept (clears). */
export function fieldsOf<C>(record: C, table: FieldTable<C>): Record<string, unknown> {
  return defined(Object.fromEntries(Object.entries(table).map(([field, source]) => [field, typeof source === 'string' ? record[source as keyof C] : source.value(record)])));
}

/** A lookup to a parent record by its external id (`keyField`), when the canonical record names one. */
export function lookup<C>(key: keyof C & string, keyField: string, describe: string): FieldSource<C> {
  return { describe, value: (record) => (record[key] ? { [keyField]: record[key] } : undefined) };
}

/** The EntityMapping a CRM runs, made from a canonical record and the CRM's field table. */
export function canonicalMapping<Source, Related, C>(
  canonical: CanonicalRecord<Source, Related, C>,
  spec: {
    object: string;
    externalIdField: string;
    fields: FieldTable<C>;
    /** The id of this CRM's record the commerce record already carries (e.g. metaInfo.crmAAccountId), so the sync updates that record. */
    carriedCrmId?: (record: C) => string | undefined;
  } & Partial<Pick<EntityMapping<Source, Related>, 'picklists' | 'unmappedLeavesAlone' | 'unknownOnCreate' | 'createOnly' | 'sellerKeeps' | 'optionalFields'>>,
): EntityMapping<Source, Related> & { table: FieldTable<C> } {
  const describe = Object.fromEntries(Object.entries(spec.fields).map(([field, source]) => [field, typeof source === 'string' ? canonical.describe[source] : source.describe]));
  return {
    entity: canonical.entity,
    object: spec.object,
    externalIdField: spec.externalIdField,
    picklists: spec.picklists ?? {},
    ...(spec.unmappedLeavesAlone && { unmappedLeavesAlone: spec.unmappedLeavesAlone }),
    ...(spec.unknownOnCreate !== undefined && { unknownOnCreate: spec.unknownOnCreate }),
    ...(spec.createOnly && { createOnly: spec.createOnly }),
    ...(spec.sellerKeeps && { sellerKeeps: spec.sellerKeeps }),
    ...(spec.optionalFields && { optionalFields: spec.optionalFields }),
    describe,
    table: spec.fields,
    map(source: Source, related: Related): MappingResult {
      const computed = canonical.compute(source, related);
      if (!computed.ok) return fail(computed.reason);
      const carriedCrmId = spec.carriedCrmId?.(computed.value) || undefined;
      return ok({ object: spec.object, externalIdField: spec.externalIdField, externalId: canonical.id(computed.value), ...(carriedCrmId && { carriedCrmId }), fields: fieldsOf(computed.value, spec.fields) });
    },
  };
}

/** Runs a computation that may meet an unreadable time: that is the record's refusal, naming it. */
export function computing<C>(what: string, compute: () => C): Computed<C> {
  try {
    return { ok: true, value: compute() };
  } catch (error) {
    if (error instanceof UnparseableTimeError) return { ok: false, reason: `${what}: ${error.message}` };
    throw error;
  }
}

/** The CRM fields of a table that take one of `values` as they are (to declare them optional, say). */
export function fieldsTaking<C>(table: FieldTable<C>, values: readonly (keyof C)[]): string[] {
  return Object.entries(table).filter(([, source]) => typeof source === 'string' && values.includes(source as keyof C)).map(([field]) => field);
}
