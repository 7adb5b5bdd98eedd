// Associations v4: the default association of one pair (PUT), batch create with labels (201, or 207)
// and batch default associations (200), each refusing per input an association to a record that no
// longer exists (deleted or merged away) or past an association limit an admin configured, and a
// record's associations. Limits are set with /_sandbox/association-limits.
import { batchError, HubSpotError, notFound, validation, type BatchError } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { findObjectType, type ObjectTypeDef } from './schema.ts';
import type { Association } from './store.ts';
import { findRecord } from './writes.ts';

/** HubSpot-defined type ids per direction; `primary` is what the default association adds too. */
const DEFAULT_TYPES: Record<string, { typeId: number; primary?: number }> = {
  'deals>contacts': { typeId: 3 },
  'contacts>deals': { typeId: 4 },
  'deals>companies': { typeId: 341, primary: 5 },
  'companies>deals': { typeId: 342, primary: 6 },
  'contacts>companies': { typeId: 279, primary: 1 },
  'companies>contacts': { typeId: 280, primary: 2 },
  'line_items>deals': { typeId: 20 },
  'deals>line_items': { typeId: 19 },
  'marketplace_entitlement>companies': { typeId: 901 },
  'companies>marketplace_entitlement': { typeId: 902 },
  'marketplace_entitlement>deals': { typeId: 903 },
  'deals>marketplace_entitlement': { typeId: 904 },
  // Usage by day (issue #25 section 4): its custom object is made associated to the entitlement's.
  'marketplace_usage>marketplace_entitlement': { typeId: 905 },
  'marketplace_entitlement>marketplace_usage': { typeId: 906 },
  // Activities (issue #27 section 1): HubSpot's default type ids for notes and tasks
  // (docs/crm-wire-behaviour.md); to the custom object invented, as a portal's own ids are.
  'notes>deals': { typeId: 214 },
  'deals>notes': { typeId: 213 },
  'notes>companies': { typeId: 190 },
  'companies>notes': { typeId: 189 },
  'notes>contacts': { typeId: 202 },
  'contacts>notes': { typeId: 201 },
  'tasks>deals': { typeId: 216 },
  'deals>tasks': { typeId: 215 },
  'tasks>companies': { typeId: 192 },
  'companies>tasks': { typeId: 191 },
  'tasks>contacts': { typeId: 204 },
  'contacts>tasks': { typeId: 203 },
  'notes>marketplace_entitlement': { typeId: 907 },
  'marketplace_entitlement>notes': { typeId: 908 },
  'tasks>marketplace_entitlement': { typeId: 909 },
  'marketplace_entitlement>tasks': { typeId: 910 },
};
/** The type id of the other direction, so an association reads from both ends. */
const INVERSE = new Map<number, number>([
  [3, 4], [4, 3], [341, 342], [342, 341], [5, 6], [6, 5], [279, 280], [280, 279], [1, 2], [2, 1], [901, 902], [902, 901], [903, 904], [904, 903], [19, 20], [20, 19], [905, 906], [906, 905],
  [214, 213], [213, 214], [190, 189], [189, 190], [202, 201], [201, 202], [216, 215], [215, 216], [192, 191], [191, 192], [204, 203], [203, 204],
  [907, 908], [908, 907], [909, 910], [910, 909],
]);

const typeName = (ctx: Ctx, raw: string) => {
  const type = ctx.state.store.objectType(raw);
  if (!type) throw validation(`Unable to infer object type from: ${raw}`);
  return type;
};

function link(ctx: Ctx, from: string, fromId: string, to: string, toId: string, typeId: number, category: Association['category']) {
  const { store } = ctx.state;
  store.addAssociation({ fromType: from, fromId, toType: to, toId, typeId, category });
  const inverse = INVERSE.get(typeId);
  if (inverse !== undefined) store.addAssociation({ fromType: to, fromId: toId, toType: from, toId: fromId, typeId: inverse, category });
}

function defaultTypeOf(from: string, to: string) {
  const types = DEFAULT_TYPES[`${from}>${to}`];
  if (!types) throw validation(`There is no default association from ${from} to ${to}`);
  return types;
}

/** How HubSpot names an object type inside association errors ("CONTACT=123 is not valid"). */
const ERROR_TYPE_NAMES: Record<string, string> = { contacts: 'CONTACT', companies: 'COMPANY', deals: 'DEAL', line_items: 'LINE_ITEM', notes: 'NOTE', tasks: 'TASK' };
const errorTypeName = (type: ObjectTypeDef) => ERROR_TYPE_NAMES[type.name] ?? type.objectTypeId;

/**
 * `aId` may not gain another associated `b` record when it holds as many as the limit an admin set
 * from `a` to `b` (limits can differ per direction). Associated records that no longer exist do not count.
 */
function overLimit(ctx: Ctx, a: string, aId: string, b: string, bId: string): string | undefined {
  const limit = ctx.state.associationLimits.get(`${a}>${b}`);
  if (limit === undefined) return undefined;
  const held = new Set(ctx.state.store.associationsOf(a, aId, b).map((association) => association.toId).filter((id) => findRecord(ctx.state.store, b, id)));
  if (held.has(bId) || held.size < limit) return undefined;
  return `${a} ${aId} already has ${held.size} associated ${b}, the association limit from ${a} to ${b} (${limit}): no more can be associated`;
}

/**
 * Why HubSpot refuses to associate two records, as one input's error, or nothing: a record that no
 * longer exists is VALIDATION_ERROR "One or more associations are invalid" with context
 * INVALID_OBJECT_IDS ["COMPANY=123 is not valid"], objectId and objectType (the shape of HubSpot's own
 * answer, HubSpot/hubspot-api-nodejs#646); a configured limit reached is a VALIDATION_ERROR naming both
 * records (its wording is the sandbox's own).
 */
function refusal(ctx: Ctx, from: ObjectTypeDef, fromId: string, to: ObjectTypeDef, toId: string): BatchError | undefined {
  const invalid = ([[from, fromId], [to, toId]] as const).filter(([type, id]) => !findRecord(ctx.state.store, type.name, id));
  if (invalid.length > 0) {
    return batchError(400, 'VALIDATION_ERROR', 'One or more associations are invalid', {
      INVALID_OBJECT_IDS: invalid.map(([type, id]) => `${errorTypeName(type)}=${id} is not valid`),
      objectId: invalid.map(([, id]) => id),
      objectType: invalid.map(([type]) => errorTypeName(type)),
    });
  }
  const limited = overLimit(ctx, from.name, fromId, to.name, toId) ?? overLimit(ctx, to.name, toId, from.name, fromId);
  if (limited) return batchError(400, 'VALIDATION_ERROR', limited, { fromObjectId: [fromId], toObjectId: [toId] });
  return undefined;
}

export function putDefault(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx, ctx.params.fromType!);
  const to = typeName(ctx, ctx.params.toType!);
  const { fromId, toId } = ctx.params as { fromId: string; toId: string };
  if (!findRecord(ctx.state.store, from.name, fromId)) throw notFound(`No ${from.name} record with id ${fromId}`);
  if (!findRecord(ctx.state.store, to.name, toId)) throw notFound(`No ${to.name} record with id ${toId}`);
  const types = defaultTypeOf(from.name, to.name);
  const made = [types.typeId, ...(types.primary === undefined ? [] : [types.primary])];
  for (const typeId of made) link(ctx, from.name, fromId, to.name, toId, typeId, 'HUBSPOT_DEFINED');
  return json(200, {
    status: 'COMPLETE',
    results: made.map((typeId) => ({ from: { id: fromId }, to: { id: toId }, associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId } })),
    startedAt: started.toISOString(),
    completedAt: ctx.state.config.now().toISOString(),
  });
}

type Spec = { associationCategory: Association['category']; associationTypeId: number };
function specsOf(raw: unknown, where: string): Spec[] {
  if (!Array.isArray(raw) || raw.length === 0) throw validation(`${where}.types must be a non-empty list of {associationCategory, associationTypeId}`);
  return raw.map((spec, i) => {
    const s = spec as Spec;
    if (!s || (s.associationCategory !== 'HUBSPOT_DEFINED' && s.associationCategory !== 'USER_DEFINED') || !Number.isInteger(s.associationTypeId)) {
      throw validation(`${where}.types[${i}] must be {associationCategory: HUBSPOT_DEFINED or USER_DEFINED, associationTypeId: a whole number}`);
    }
    return s;
  });
}

export function batchCreate(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx, ctx.params.fromType!);
  const to = typeName(ctx, ctx.params.toType!);
  const inputs = bodyObject(ctx).inputs;
  if (!Array.isArray(inputs)) throw validation('inputs must be a list');
  if (inputs.length > 2000) throw validation(`Batch input limit exceeded: ${inputs.length} inputs were given, at most 2000 are allowed.`);
  const known = new Set(Object.entries(DEFAULT_TYPES).filter(([k]) => k.startsWith(`${from.name}>${to.name}`)).flatMap(([, t]) => [t.typeId, t.primary]));
  const checked = inputs.map((input, i) => {
    const where = `inputs[${i}]`;
    const fromId = (input as { from?: { id?: unknown } })?.from?.id;
    const toId = (input as { to?: { id?: unknown } })?.to?.id;
    if (typeof fromId !== 'string' || typeof toId !== 'string') throw validation(`${where} must have from.id and to.id (text)`);
    const specs = specsOf((input as { types?: unknown }).types, where);
    for (const spec of specs) {
      if (spec.associationCategory === 'HUBSPOT_DEFINED' && !known.has(spec.associationTypeId)) {
        throw validation(`${where}: association type ${spec.associationTypeId} is not a HUBSPOT_DEFINED type from ${from.name} to ${to.name}`);
      }
    }
    return { fromId, toId, specs };
  });
  const results: unknown[] = [];
  const errors: BatchError[] = [];
  for (const { fromId, toId, specs } of checked) {
    const refused = refusal(ctx, from, fromId, to, toId);
    if (refused) {
      errors.push(refused);
      continue;
    }
    for (const spec of specs) link(ctx, from.name, fromId, to.name, toId, spec.associationTypeId, spec.associationCategory);
    results.push({ fromObjectTypeId: from.objectTypeId, fromObjectId: fromId, toObjectTypeId: to.objectTypeId, toObjectId: toId, labels: [] });
  }
  const body: Record<string, unknown> = { status: 'COMPLETE', results, startedAt: started.toISOString(), completedAt: ctx.state.config.now().toISOString() };
  if (errors.length === 0) return json(201, body);
  return json(207, { ...body, numErrors: errors.length, errors });
}

export function readOfRecord(ctx: Ctx): Reply {
  const from = typeName(ctx, ctx.params.fromType!);
  const to = typeName(ctx, ctx.params.toType!);
  const fromId = ctx.params.fromId!;
  if (!findRecord(ctx.state.store, from.name, fromId)) throw new HubSpotError(404, 'OBJECT_NOT_FOUND', `No ${from.name} record with id ${fromId}`);
  const limit = Number(ctx.url.searchParams.get('limit') ?? 500);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw validation('limit must be a whole number from 1 to 500');
  const byTarget = new Map<string, Association[]>();
  for (const a of ctx.state.store.associationsOf(from.name, fromId, to.name)) {
    if (!findRecord(ctx.state.store, to.name, a.toId)) continue;
    byTarget.set(a.toId, [...(byTarget.get(a.toId) ?? []), a]);
  }
  const targets = [...byTarget.keys()].sort((a, b) => Number(a) - Number(b));
  const after = ctx.url.searchParams.get('after');
  const start = after ? targets.findIndex((id) => Number(id) > Number(after)) : 0;
  const page = start < 0 ? [] : targets.slice(start, start + limit);
  return json(200, {
    // The spec types toObjectId as text (the live API is reported to send a number): the spec is the contract.
    results: page.map((toId) => ({
      toObjectId: toId,
      associationTypes: byTarget.get(toId)!.map((a) => ({ category: a.category, typeId: a.typeId, label: isPrimary(a.typeId) ? 'Primary' : undefined })),
    })),
    ...(start >= 0 && start + limit < targets.length ? { paging: { next: { after: page.at(-1)! } } } : {}),
  });
}

const isPrimary = (typeId: number) => [1, 5].includes(typeId);

/**
 * Default associations in a batch (the spec declares 200 only: inputs HubSpot refuses, for a record
 * that no longer exists or a limit reached, are listed in `errors` and counted in `numErrors` of that
 * 200 answer; the others are made and each listed in `results`).
 */
export function batchDefault(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx, ctx.params.fromType!);
  const to = typeName(ctx, ctx.params.toType!);
  const inputs = bodyObject(ctx).inputs;
  if (!Array.isArray(inputs)) throw validation('inputs must be a list');
  if (inputs.length > 2000) throw validation(`Batch input limit exceeded: ${inputs.length} inputs were given, at most 2000 are allowed.`);
  const types = defaultTypeOf(from.name, to.name);
  const checked = inputs.map((input, i) => {
    const fromId = (input as { from?: { id?: unknown } })?.from?.id;
    const toId = (input as { to?: { id?: unknown } })?.to?.id;
    if (typeof fromId !== 'string' || typeof toId !== 'string') throw validation(`inputs[${i}] must have from.id and to.id (text)`);
    return { fromId, toId };
  });
  const results: unknown[] = [];
  const errors: BatchError[] = [];
  const made = [types.typeId, ...(types.primary === undefined ? [] : [types.primary])];
  for (const { fromId, toId } of checked) {
    const refused = refusal(ctx, from, fromId, to, toId);
    if (refused) {
      errors.push(refused);
      continue;
    }
    for (const typeId of made) {
      link(ctx, from.name, fromId, to.name, toId, typeId, 'HUBSPOT_DEFINED');
      results.push({ from: { id: fromId }, to: { id: toId }, associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId } });
    }
  }
  return json(200, {
    status: 'COMPLETE',
    results,
    ...(errors.length ? { numErrors: errors.length, errors } : {}),
    startedAt: started.toISOString(),
    completedAt: ctx.state.config.now().toISOString(),
  });
}

/** Each input record's associations to the target type (207 names inputs that do not exist). */
export function batchRead(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx, ctx.params.fromType!);
  const to = typeName(ctx, ctx.params.toType!);
  const inputs = bodyObject(ctx).inputs;
  if (!Array.isArray(inputs)) throw validation('inputs must be a list');
  if (inputs.length > 1000) throw validation(`Batch input limit exceeded: ${inputs.length} inputs were given, at most 1000 are allowed.`);
  const results: unknown[] = [];
  const errors: BatchError[] = [];
  inputs.forEach((input, i) => {
    const id = (input as { id?: unknown })?.id;
    if (typeof id !== 'string') throw validation(`inputs[${i}].id must be text`);
    if (!findRecord(ctx.state.store, from.name, id)) {
      errors.push(batchError(404, 'OBJECT_NOT_FOUND', `No ${from.name} record with id ${id}`, { ids: [id] }));
      return;
    }
    const byTarget = new Map<string, Association[]>();
    for (const a of ctx.state.store.associationsOf(from.name, id, to.name)) {
      if (!findRecord(ctx.state.store, to.name, a.toId)) continue;
      byTarget.set(a.toId, [...(byTarget.get(a.toId) ?? []), a]);
    }
    const targets = [...byTarget.keys()].sort((a, b) => Number(a) - Number(b));
    results.push({
      from: { id },
      to: targets.map((toId) => ({
        toObjectId: toId,
        associationTypes: byTarget.get(toId)!.map((a) => ({ category: a.category, typeId: a.typeId, ...(isPrimary(a.typeId) ? { label: 'Primary' } : {}) })),
      })),
    });
  });
  const body: Record<string, unknown> = { status: 'COMPLETE', results, startedAt: started.toISOString(), completedAt: ctx.state.config.now().toISOString() };
  if (errors.length === 0) return json(200, body);
  return json(207, { ...body, numErrors: errors.length, errors });
}

/**
 * /_sandbox/association-limits: what an admin configures in HubSpot's association settings (or with
 * the v4 definitions/configurations endpoints). POST `{fromType, toType, limit}` sets the most `toType`
 * records one `fromType` record may be associated with (`limit: null` removes it); GET lists them.
 */
export const associationLimits = {
  read: (ctx: Ctx): Reply => json(200, { limits: [...ctx.state.associationLimits].map(([key, limit]) => ({ fromType: key.split('>')[0], toType: key.split('>')[1], limit })) }),
  set(ctx: Ctx): Reply {
    const { fromType, toType, limit } = bodyObject(ctx);
    const from = findObjectType(String(fromType ?? ''));
    const to = findObjectType(String(toType ?? ''));
    if (!from || !to) throw validation('fromType and toType must name object types (contacts, companies, deals, line_items, ...)');
    if (limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) throw validation('limit must be a whole number of at least 1, or null to remove the limit');
    if (limit === null) ctx.state.associationLimits.delete(`${from.name}>${to.name}`);
    else ctx.state.associationLimits.set(`${from.name}>${to.name}`, limit);
    return associationLimits.read(ctx);
  },
};

/**
 * The `associations` of a create input (`[{to: {id}, types: [{associationCategory, associationTypeId}]}]`),
 * checked before anything is written: each type id must be a HUBSPOT_DEFINED one from `from` (it names
 * the type associated to), and the record it points at must exist; anything else refuses the request (400).
 * Returns a function making them once the record has its id.
 */
export function createAssociations(ctx: Ctx, from: string, raw: unknown): (fromId: string) => void {
  if (raw === undefined) return () => {};
  if (!Array.isArray(raw)) throw validation('associations must be a list of {to: {id}, types: [{associationCategory, associationTypeId}]}');
  const planned = raw.map((entry, i) => {
    const to = (entry as { to?: { id?: unknown } })?.to?.id;
    const types = (entry as { types?: unknown })?.types;
    if ((typeof to !== 'string' && typeof to !== 'number') || !Array.isArray(types) || types.length === 0) throw validation(`associations[${i}] must have to.id and a non-empty types list`);
    return types.map((t, j) => {
      const { associationCategory, associationTypeId } = (t ?? {}) as { associationCategory?: unknown; associationTypeId?: unknown };
      if (associationCategory !== 'HUBSPOT_DEFINED' || typeof associationTypeId !== 'number') throw validation(`associations[${i}].types[${j}] must be {associationCategory: "HUBSPOT_DEFINED", associationTypeId: <number>} here`);
      const pair = Object.entries(DEFAULT_TYPES).find(([key, value]) => key.startsWith(`${from}>`) && (value.typeId === associationTypeId || value.primary === associationTypeId));
      if (!pair) throw validation(`associations[${i}]: ${associationTypeId} is not an association type id from ${from}`);
      const toType = pair[0].slice(from.length + 1);
      if (!findRecord(ctx.state.store, toType, String(to))) throw validation('One or more associations are invalid', { context: { INVALID_OBJECT_IDS: [`${ERROR_TYPE_NAMES[toType] ?? ctx.state.store.internalType(toType)?.objectTypeId ?? toType}=${to} is not valid`] } });
      return { toType, toId: String(to), typeId: associationTypeId };
    });
  }).flat();
  return (fromId) => planned.forEach(({ toType, toId, typeId }) => link(ctx, from, fromId, toType, toId, typeId, 'HUBSPOT_DEFINED'));
}
