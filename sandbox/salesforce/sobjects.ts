// Single-record REST resources under /sobjects: describe, create, retrieve, update, upsert by
// external id, delete.
import { describeGlobal as globalBody, describeObject, objectInfo, renderRecord } from './describe.ts';
import { notFound, RequestError, type RecordError } from './errors.ts';
import { json, noContent, type Ctx, type Reply } from './http.ts';
import { canonicalId } from './ids.ts';
import { parseJsonBody, recordFromJson } from './json-record.ts';
import { findField, findObject, isUpsertKey, type SandboxField, type SandboxObject } from './schema.ts';
import type { StoredRecord } from './store.ts';
import { emptyInput, saveRecords, type SaveResult, type WriteMode } from './writes.ts';

export const toApiErrors = (errors: RecordError[]) => errors.map((e) => ({ message: e.message, errorCode: e.statusCode, fields: e.fields }));

export function objectOf(ctx: Ctx): SandboxObject {
  const object = findObject(ctx.params.type ?? '');
  if (!object) throw notFound();
  return object;
}

export const writeEnv = (ctx: Ctx) => ({ store: ctx.state.store, now: ctx.state.config.now });

/** The error Salesforce gives for a field list naming something the object lacks. */
export const unknownColumn = (object: SandboxObject, name: string) =>
  new RequestError(
    400,
    'INVALID_FIELD',
    `No such column '${name}' on entity '${object.name}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
  );

export function resolveFields(object: SandboxObject, names: string[]): SandboxField[] {
  return names.map((name) => {
    const field = findField(object, name.trim());
    if (!field) throw unknownColumn(object, name.trim());
    return field;
  });
}

function liveRecord(ctx: Ctx, object: SandboxObject, rawId: string): StoredRecord {
  const id = canonicalId(rawId);
  const record = id && id.startsWith(object.keyPrefix) ? ctx.state.store.table(object).get(id) : undefined;
  if (!record) throw notFound();
  if (record.IsDeleted) throw new RequestError(404, 'ENTITY_IS_DELETED', 'entity is deleted', []);
  return record;
}

function upsertKeyField(object: SandboxObject, name: string): SandboxField {
  const field = findField(object, name);
  if (!field || !isUpsertKey(field)) throw new RequestError(404, 'NOT_FOUND', `Provided external ID field does not exist or is not accessible: ${name}`);
  return field;
}

function saveOne(ctx: Ctx, object: SandboxObject, mode: WriteMode): SaveResult {
  const input = mode.kind === 'delete' ? emptyInput(object) : recordFromJson(object, parseJsonBody(ctx.body), ctx.body).input;
  if (mode.kind === 'upsert') input.values.delete(mode.keyField.name); // the URL names the key
  return saveRecords(writeEnv(ctx), [{ input, mode }], { allOrNone: true })[0]!;
}

const failure = (result: SaveResult): Reply => json(400, result.ok ? [] : toApiErrors(result.errors));

// Both show what the org has and its integration user may see (org-schema.ts, field-access.ts).
export const describeGlobal = (ctx: Ctx): Reply => json(200, globalBody(ctx.version));
export const describe = (ctx: Ctx): Reply => {
  const object = objectOf(ctx);
  const table = ctx.state.store.table(object);
  return json(200, describeObject(object, ctx.version, (field) => table.isUnique(field)));
};
export const info = (ctx: Ctx): Reply => json(200, objectInfo(objectOf(ctx), ctx.version));

export function create(ctx: Ctx): Reply {
  const result = saveOne(ctx, objectOf(ctx), { kind: 'create' });
  return result.ok ? json(201, { id: result.id, success: true, errors: [] }) : failure(result);
}

export function retrieve(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  const record = liveRecord(ctx, object, ctx.params.id!);
  return json(200, render(ctx, object, record));
}

function render(ctx: Ctx, object: SandboxObject, record: StoredRecord) {
  const requested = ctx.url.searchParams.get('fields');
  if (!requested) return renderRecord(object, record, object.fields, ctx.version);
  const fields = resolveFields(object, requested.split(','));
  const idField = object.fields[0]!;
  return renderRecord(object, record, fields.includes(idField) ? fields : [...fields, idField], ctx.version);
}

export function retrieveByExternalId(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  const keyField = upsertKeyField(object, ctx.params.field!);
  const record = keyField.name === 'Id' ? liveRecord(ctx, object, ctx.params.value!) : ctx.state.store.table(object).findUnique(keyField, ctx.params.value!);
  if (!record) throw notFound();
  return json(200, render(ctx, object, record));
}

export function update(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  const record = liveRecord(ctx, object, ctx.params.id!);
  const result = saveOne(ctx, object, { kind: 'update', id: record.Id });
  return result.ok ? noContent() : failure(result);
}

export function upsert(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  const keyField = upsertKeyField(object, ctx.params.field!);
  const result = saveOne(ctx, object, { kind: 'upsert', keyField, key: ctx.params.value });
  if (!result.ok) return failure(result);
  if (result.created) return json(201, { id: result.id, success: true, errors: [], created: true });
  // API 46.0 and later answer an update with a body; older versions with 204.
  return Number(ctx.version) >= 46 ? json(200, { id: result.id, success: true, errors: [], created: false }) : noContent();
}

export function remove(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  const record = liveRecord(ctx, object, ctx.params.id!);
  const result = saveOne(ctx, object, { kind: 'delete', id: record.Id });
  return result.ok ? noContent() : failure(result);
}
