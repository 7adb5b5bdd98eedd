// Associations v4: the default association of one pair (PUT), batch create with labels
// (201, or 207 naming the inputs whose records do not exist), and a record's associations.
import { batchError, HubSpotError, notFound, validation, type BatchError } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { findObjectType } from './schema.ts';
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
};
/** The type id of the other direction, so an association reads from both ends. */
const INVERSE = new Map<number, number>([
  [3, 4], [4, 3], [341, 342], [342, 341], [5, 6], [6, 5], [279, 280], [280, 279], [1, 2], [2, 1], [901, 902], [902, 901], [903, 904], [904, 903], [19, 20], [20, 19],
]);

const typeName = (raw: string) => {
  const type = findObjectType(raw);
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

export function putDefault(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx.params.fromType!);
  const to = typeName(ctx.params.toType!);
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
  const from = typeName(ctx.params.fromType!);
  const to = typeName(ctx.params.toType!);
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
    const missing = [
      ...(findRecord(ctx.state.store, from.name, fromId) ? [] : [`${from.name} ${fromId}`]),
      ...(findRecord(ctx.state.store, to.name, toId) ? [] : [`${to.name} ${toId}`]),
    ];
    if (missing.length > 0) {
      errors.push(batchError(404, 'OBJECT_NOT_FOUND', `No such records: ${missing.join(', ')}`, { fromId: [fromId], toId: [toId] }));
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
  const from = typeName(ctx.params.fromType!);
  const to = typeName(ctx.params.toType!);
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
 * Default associations in a batch (the spec declares 200 only: inputs whose records do not exist are
 * listed in `errors` of that 200 answer, the others are made).
 */
export function batchDefault(ctx: Ctx): Reply {
  const started = ctx.state.config.now();
  const from = typeName(ctx.params.fromType!);
  const to = typeName(ctx.params.toType!);
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
    const missing = [
      ...(findRecord(ctx.state.store, from.name, fromId) ? [] : [`${from.name} ${fromId}`]),
      ...(findRecord(ctx.state.store, to.name, toId) ? [] : [`${to.name} ${toId}`]),
    ];
    if (missing.length > 0) {
      errors.push(batchError(404, 'OBJECT_NOT_FOUND', `No such records: ${missing.join(', ')}`, { fromId: [fromId], toId: [toId] }));
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
  const from = typeName(ctx.params.fromType!);
  const to = typeName(ctx.params.toType!);
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
