// CRM objects v3: basic get/create/update/archive, list with `after` paging, and batch
// read/create/update/upsert with per-record results (200 all fine, 207 with numErrors and errors).
import { batchError, HubSpotError, notFound, validation, type BatchError } from './errors.ts';
import { bodyObject, json, noContent, queryList, type Ctx, type Reply } from './http.ts';
import { isIdentity } from './schema.ts';
import { createAssociations } from './associations.ts';
import { archiveRecord, checkBatchIdentities, checkProperties, createRecord, findRecord, present, updateRecord } from './writes.ts';

export const MAX_BATCH = 100;

export function objectTypeOf(ctx: Ctx): string {
  const raw = ctx.params.objectType ?? '';
  // A custom object's bare name is unknown too (custom-objects.ts).
  const type = ctx.state.store.objectType(raw);
  if (!type) throw new HubSpotError(400, 'VALIDATION_ERROR', `Unable to infer object type from: ${raw}`);
  return type.name;
}

const now = (ctx: Ctx) => ctx.state.config.now();

export function getOne(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const idProperty = ctx.url.searchParams.get('idProperty') ?? undefined;
  const record = findRecord(ctx.state.store, type, ctx.params.id!, idProperty);
  if (!record) throw notFound(`No ${type} record with ${idProperty ?? 'id'} ${ctx.params.id}`);
  return json(200, present(type, record, queryList(ctx.url, 'properties')));
}

export function list(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const limit = Number(ctx.url.searchParams.get('limit') ?? 10);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw validation(`limit must be a whole number from 1 to 100, not ${ctx.url.searchParams.get('limit')}`);
  const after = ctx.url.searchParams.get('after');
  const live = ctx.state.store.records(type).filter((r) => !r.archived).sort((a, b) => Number(a.id) - Number(b.id));
  const start = after ? live.findIndex((r) => Number(r.id) > Number(after)) : 0;
  const page = start < 0 ? [] : live.slice(start, start + limit);
  const more = start >= 0 && start + limit < live.length;
  const requested = queryList(ctx.url, 'properties');
  return json(200, {
    results: page.map((r) => present(type, r, requested)),
    ...(more ? { paging: { next: { after: page.at(-1)!.id, link: `?after=${page.at(-1)!.id}` } } } : {}),
  });
}

export function createOne(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const body = bodyObject(ctx);
  const values = checkProperties(ctx.state.store, type, body.properties);
  const associate = createAssociations(ctx, type, body.associations);
  const made = createRecord(ctx.state.store, type, values, now(ctx));
  associate(made.id);
  return json(201, present(type, made, Object.keys(values)));
}

export function updateOne(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const idProperty = ctx.url.searchParams.get('idProperty') ?? undefined;
  const existing = findRecord(ctx.state.store, type, ctx.params.id!, idProperty);
  if (!existing) throw notFound(`No ${type} record with ${idProperty ?? 'id'} ${ctx.params.id}`);
  const values = checkProperties(ctx.state.store, type, bodyObject(ctx).properties);
  return json(200, present(type, updateRecord(ctx.state.store, type, existing, values, now(ctx)), Object.keys(values)));
}

export function archiveOne(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const existing = findRecord(ctx.state.store, type, ctx.params.id!);
  if (existing) archiveRecord(ctx.state.store, type, existing, now(ctx));
  return noContent();
}

function inputsOf(ctx: Ctx): Record<string, unknown>[] {
  const inputs = bodyObject(ctx).inputs;
  if (!Array.isArray(inputs)) throw validation('inputs must be a list');
  if (inputs.length > MAX_BATCH) throw validation(`Batch input limit exceeded: ${inputs.length} inputs were given, at most ${MAX_BATCH} are allowed.`, { context: { inputs: [String(inputs.length)] } });
  inputs.forEach((input, index) => {
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw validation(`inputs[${index}] must be an object`);
  });
  return inputs as Record<string, unknown>[];
}

/** 200 when every input went through, else 207 with the errors; `okStatus` is 201 for create. */
function batchReply(okStatus: number, startedAt: Date, results: unknown[], errors: BatchError[], completedAt: Date): Reply {
  const body: Record<string, unknown> = { status: 'COMPLETE', results, startedAt: startedAt.toISOString(), completedAt: completedAt.toISOString() };
  if (errors.length === 0) return json(okStatus, body);
  return json(207, { ...body, numErrors: errors.length, errors });
}

/** Runs `each` per input; a 409 or 404 of one input becomes its error, anything else refuses the batch. */
function perInput(inputs: Record<string, unknown>[], each: (input: Record<string, unknown>) => unknown) {
  const results: unknown[] = [];
  const errors: BatchError[] = [];
  for (const input of inputs) {
    try {
      results.push(each(input));
    } catch (error) {
      if (error instanceof HubSpotError && (error.status === 404 || error.status === 409)) {
        errors.push(batchError(error.status, error.category, error.message, (error.extra.context as Record<string, string[]>) ?? {}));
      } else throw error;
    }
  }
  return { results, errors };
}

const idText = (input: Record<string, unknown>, index = 0) => {
  if (typeof input.id !== 'string' || input.id === '') throw validation(`inputs[${index}].id must be text`);
  return input.id;
};

export function batchRead(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const started = now(ctx);
  const body = bodyObject(ctx);
  const inputs = inputsOf(ctx);
  const idProperty = typeof body.idProperty === 'string' ? body.idProperty : undefined;
  const requested = Array.isArray(body.properties) ? (body.properties as string[]) : undefined;
  const { results, errors } = perInput(inputs, (input) => {
    const id = idText(input);
    const record = findRecord(ctx.state.store, type, id, idProperty);
    if (!record) throw new HubSpotError(404, 'OBJECT_NOT_FOUND', `Could not get some ${type} objects, they may be deleted or not exist. Check that ids are valid.`, { context: { ids: [id] } });
    return present(type, record, requested);
  });
  return batchReply(200, started, results, errors, now(ctx));
}

export function batchCreate(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const started = now(ctx);
  const inputs = inputsOf(ctx);
  const checked = inputs.map((input) => checkProperties(ctx.state.store, type, input.properties));
  // An input's associations are made with it (the create batch's own `associations`).
  const associations = inputs.map((input) => createAssociations(ctx, type, input.associations));
  checkBatchIdentities(ctx.state.store, type, checked.map((values) => ({ values })));
  let index = 0;
  const { results, errors } = perInput(inputs, () => {
    const i = index++;
    const values = checked[i]!;
    const record = createRecord(ctx.state.store, type, values, now(ctx));
    associations[i]!(record.id);
    return present(type, record, Object.keys(values));
  });
  return batchReply(201, started, results, errors, now(ctx));
}

export function batchUpdate(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const started = now(ctx);
  const inputs = inputsOf(ctx);
  const checked = inputs.map((input, i) => ({ id: idText(input, i), idProperty: typeof input.idProperty === 'string' ? input.idProperty : undefined, values: checkProperties(ctx.state.store, type, input.properties) }));
  checkBatchIdentities(ctx.state.store, type, checked.map(({ id, idProperty, values }) => ({ values, selfId: findRecord(ctx.state.store, type, id, idProperty)?.id })));
  let index = 0;
  const { results, errors } = perInput(inputs, () => {
    const { id, idProperty, values } = checked[index++]!;
    const existing = findRecord(ctx.state.store, type, id, idProperty);
    if (!existing) throw new HubSpotError(404, 'OBJECT_NOT_FOUND', `No ${type} record with ${idProperty ?? 'id'} ${id}`, { context: { ids: [id] } });
    return present(type, updateRecord(ctx.state.store, type, existing, values, now(ctx)), Object.keys(values));
  });
  return batchReply(200, started, results, errors, now(ctx));
}

/** Upsert by a unique-value idProperty: the record holding that value is updated, else one is made with it. */
export function batchUpsert(ctx: Ctx): Reply {
  const type = objectTypeOf(ctx);
  const started = now(ctx);
  const inputs = inputsOf(ctx);
  const { store } = ctx.state;
  const checked = inputs.map((input, i) => {
    const id = idText(input, i);
    const idProperty = input.idProperty;
    if (typeof idProperty !== 'string' || idProperty === '') throw validation(`inputs[${i}].idProperty must name a unique-value property`);
    const definition = store.property(type, idProperty);
    if (!definition) throw validation(`Property "${idProperty}" does not exist on ${type}`, { context: { idProperty: [idProperty] } });
    if (!definition.hasUniqueValue && idProperty !== 'hs_object_id' && !isIdentity(type, idProperty)) {
      throw validation(`${idProperty} is not a unique-value property: upsert needs an idProperty with hasUniqueValue true`, { context: { idProperty: [idProperty] } });
    }
    return { id, idProperty, values: checkProperties(store, type, input.properties) };
  });
  const seen = new Set<string>();
  for (const { id, idProperty } of checked) {
    const key = `${idProperty}\u0000${id}`;
    if (seen.has(key)) throw validation(`Duplicate ids found in the batch: ${idProperty} ${id} appears more than once`, { context: { ids: [id] } });
    seen.add(key);
  }
  checkBatchIdentities(store, type, checked.map(({ id, idProperty, values }) => ({ values: { ...values, [idProperty]: id }, selfId: findRecord(store, type, id, idProperty)?.id })));
  let index = 0;
  const { results, errors } = perInput(inputs, () => {
    const { id, idProperty, values } = checked[index++]!;
    const existing = findRecord(store, type, id, idProperty);
    if (existing) return { ...present(type, updateRecord(store, type, existing, values, now(ctx)), Object.keys(values)), new: false };
    if (idProperty === 'hs_object_id') throw new HubSpotError(404, 'OBJECT_NOT_FOUND', `No ${type} record with id ${id}`, { context: { ids: [id] } });
    const made = createRecord(store, type, { ...values, [idProperty]: id }, now(ctx));
    return { ...present(type, made, [...Object.keys(values), idProperty]), new: true };
  });
  return batchReply(200, started, results, errors, now(ctx));
}
