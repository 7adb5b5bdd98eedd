// "Test on a real record" (issue #26 section 3): what one commerce record would become with a flow's
// mapping and overrides not saved yet, and what the CRM would answer, with nothing written anywhere.
// The payload is exactly what the sync would send (create-only fields only on a new record, the
// opening stage where a status is unknown); the answer is a describe-based check, field by field
// (no CRM here offers a dry run of an upsert): the mapping's problems (validateMapping), fields the
// object lacks or will not take, values of the wrong type or too long, picklist values the org lacks,
// and required fields a new record would leave empty. Reads are injected, so this runs against any CRM.
import type pg from 'pg';
import { readRelatedEach } from '../activities/refused-reads.ts';
import { CommerceApiError } from '../commerce/errors.ts';
import type { FieldSchema, ObjectSchema } from '../crm/connector.ts';
import { FLOWS } from '../flows/index.ts';
import { fitToSchema } from '../mappings/fit-to-schema.ts';
import { applyMapping, effectiveCreateOnly, validateMapping, type EntityOverrides } from '../mappings/overrides.ts';
import type { Entity, EntityMapping, UnknownValue } from '../mappings/types.ts';
import { createRecordLinkStore } from '../store/record-links.ts';
import type { ConnectionRuntime } from '../sync/runtime.ts';

export type MappingTestDeps = {
  /** The commerce record by id, with what its mapping needs besides it; undefined when there is none. */
  readRecord(id: string): Promise<{ source: unknown; related: unknown } | undefined>;
  describe(object: string): Promise<ObjectSchema>;
  /** The CRM record this connection already wrote for the commerce record, if any (then the write is an update). */
  linkedCrmId(sourceId: string): Promise<string | undefined>;
};

/** What the CRM would say of one field's value. */
export type FieldAnswer = { field: string; value: unknown; refused?: string };

export type MappingTestResult = {
  recordId: string;
  object: string;
  /** The record is not there, or the mapping refuses it (the reason a dead letter would carry). */
  refused?: string;
  /** Update of this CRM record, else a create keyed by the external id. */
  crmId?: string;
  externalIdField?: string;
  externalId?: string;
  /** The fields sent, exactly as the sync would send them. */
  payload?: Record<string, unknown>;
  /** Source values the picklist maps lack: their fields were left out. */
  unknown: UnknownValue[];
  /** The mapping with these overrides against the described object (what saving would refuse). */
  problems: string[];
  fields: FieldAnswer[];
  /** Required fields a new record would leave empty. */
  missing: string[];
  /** Nothing refused: the CRM would take the record as far as its schema says. */
  ok: boolean;
};

const NUMBER_TYPES = new Set(['double', 'currency', 'int', 'integer', 'percent', 'number', 'decimal', 'money', 'long', 'bigint']);
const DATE_TYPES = new Set(['date', 'dateonly']);
const DATETIME_TYPES = new Set(['datetime']);
const BOOLEAN_TYPES = new Set(['boolean', 'bool', 'booleancheckbox']);
const FILLED_BY_THE_CRM = new Set(['id', 'uniqueidentifier', 'owner']);

/** Why the CRM would refuse this value in this field, or undefined when it would take it. */
export function valueRefusal(field: FieldSchema, value: unknown, creating: boolean): string | undefined {
  if (creating ? !field.createable : !field.updateable) return `${field.name} cannot be ${creating ? 'set on a new record' : 'changed'} (read-only)`;
  if (value === null) return field.required ? `${field.name} is required and cannot be cleared` : undefined;
  const type = field.type.toLowerCase();
  if (typeof value === 'object') return type === 'reference' || field.referenceTo?.length ? undefined : `${field.name} takes a ${type}, not an object`;
  if (NUMBER_TYPES.has(type) && typeof value !== 'number') return `${field.name} takes a number, not ${JSON.stringify(value)}`;
  if (BOOLEAN_TYPES.has(type) && typeof value !== 'boolean') return `${field.name} takes true or false, not ${JSON.stringify(value)}`;
  if (DATE_TYPES.has(type) && !/^\d{4}-\d{2}-\d{2}$/.test(String(value))) return `${field.name} takes a date (YYYY-MM-DD), not ${JSON.stringify(value)}`;
  if (DATETIME_TYPES.has(type) && Number.isNaN(Date.parse(String(value)))) return `${field.name} takes a date and time, not ${JSON.stringify(value)}`;
  if (field.picklistValues && field.restrictedPicklist && !field.picklistValues.includes(String(value))) {
    return `${JSON.stringify(value)} is not a value of the picklist ${field.name} (it has: ${field.picklistValues.join(', ')})`;
  }
  if (field.length && typeof value === 'string' && value.length > field.length) return `${field.name} takes at most ${field.length} characters; this value has ${value.length}`;
  return undefined;
}

export async function testMappingOnRecord(
  deps: MappingTestDeps,
  input: { mapping: EntityMapping<any, any>; overrides: EntityOverrides | undefined; recordId: string },
): Promise<MappingTestResult> {
  const { overrides, recordId } = input;
  const schema = await deps.describe(input.mapping.object);
  const mapping = fitToSchema(input.mapping, schema);
  const base = { recordId, object: schema.name, unknown: [], fields: [], missing: [], problems: validateMapping(mapping, overrides, schema) };
  const read = await deps.readRecord(recordId);
  if (!read) return { ...base, refused: `There is no ${mapping.entity} ${recordId} in the commerce organization.`, ok: false };
  const mapped = applyMapping(mapping, overrides, read.source, read.related);
  if (!mapped.ok) return { ...base, refused: mapped.reason, ok: false };

  const crmId = (await deps.linkedCrmId(recordId)) ?? undefined;
  const creating = !crmId;
  const createOnly = effectiveCreateOnly(mapping, overrides);
  const kept = creating ? mapped.record.fields : Object.fromEntries(Object.entries(mapped.record.fields).filter(([name]) => !createOnly.includes(name)));
  const openings = creating ? (mapped.unknown ?? []).filter((value) => value.onCreate !== undefined) : [];
  const payload = { ...kept, ...Object.fromEntries(openings.map((value) => [value.field, value.onCreate])) };

  const byRelationship = (name: string) => [...schema.fields.values()].find((field) => field.relationshipName === name);
  const fields: FieldAnswer[] = Object.entries(payload).map(([name, value]) => {
    const described = schema.fields.get(name) ?? byRelationship(name);
    if (!described) return { field: name, value, refused: `${schema.name} has no field ${name}` };
    const refused = valueRefusal(described, value, creating);
    return refused ? { field: name, value, refused } : { field: name, value };
  });
  const filled = new Set([mapping.externalIdField, ...Object.keys(payload)]);
  const missing = creating
    ? [...schema.fields.values()]
        .filter((field) => field.required && field.createable && !FILLED_BY_THE_CRM.has(field.type.toLowerCase()) && !filled.has(field.name) && !(field.relationshipName && filled.has(field.relationshipName)))
        .map((field) => `${field.name} is required on a new ${schema.name} and this record leaves it empty`)
    : [];
  return {
    ...base,
    ...(crmId && { crmId }),
    externalIdField: mapped.record.externalIdField,
    externalId: mapped.record.externalId,
    payload,
    unknown: mapped.unknown ?? [],
    fields,
    missing,
    ok: base.problems.length === 0 && missing.length === 0 && fields.every((field) => !field.refused),
  };
}

/**
 * The reads of a connection's runtime, as the sync makes them: the record by id from the commerce API
 * (only if it belongs to the flow), what its mapping needs besides it, and the connection's link to it.
 */
export function connectionReads(rt: Pick<ConnectionRuntime, 'id' | 'commerce' | 'crm' | 'settings'>, pool: pg.Pool, entity: Entity): MappingTestDeps {
  const flow = FLOWS[entity];
  const org = rt.settings.commerce.organizationId;
  return {
    describe: (object) => rt.crm.describe(object),
    async readRecord(id) {
      let source: any;
      try {
        source = await flow.source.byId(rt.commerce, org, id);
      } catch (error) {
        if (error instanceof CommerceApiError && error.status === 404) return undefined;
        throw error;
      }
      if (!source || (flow.source.filter && !flow.source.filter.accepts(source))) return undefined;
      if (!flow.related) return { source, related: undefined };
      const related = await readRelatedEach(flow.related, rt.commerce, org, [source]);
      const unreadable = related.unreadable.get(source.id);
      if (unreadable) throw new Error(`the ${entity}'s related records cannot be read: ${unreadable.join('; ')}`);
      return { source, related: related.byRecord.get(source.id) };
    },
    async linkedCrmId(sourceId) {
      return (await createRecordLinkStore(pool).get(rt.id, entity, [sourceId])).get(sourceId)?.crmId ?? undefined;
    },
  };
}
