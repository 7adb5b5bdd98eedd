// sObject Collections (/composite/sobjects): create, update, upsert by external id, retrieve and
// delete of up to 200 records (2,000 ids for retrieve) per call. Saves answer 200 with one result per
// input record, in input order; allOrNone makes the call all-or-nothing.
import { renderRecord } from './describe.ts';
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { canonicalId } from './ids.ts';
import { parseJsonBody, recordFromJson } from './json-record.ts';
import { findField, findObject, isUpsertKey, objectByKeyPrefix, SALESFORCE_SANDBOX_SCHEMA, type SandboxObject } from './schema.ts';
import { objectOf, resolveFields, writeEnv } from './sobjects.ts';
import { emptyInput, saveRecords, type RecordInput, type SaveResult, type WriteMode } from './writes.ts';

const MAX_RECORDS = 200;
const MAX_RETRIEVE_IDS = 2000;

const tooMany = (max: number) =>
  new RequestError(400, 'EXCEEDED_ID_LIMIT', `record limit reached. cannot submit more than ${max} records into this call`);

type CollectionBody = { allOrNone: boolean; records: unknown[] };

function collectionBody(ctx: Ctx): CollectionBody {
  const body = parseJsonBody(ctx.body) as { allOrNone?: unknown; records?: unknown } | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.records)) {
    throw new RequestError(400, 'JSON_PARSER_ERROR', 'The request body must be an object with a records array');
  }
  if (body.records.length > MAX_RECORDS) throw tooMany(MAX_RECORDS);
  return { allOrNone: body.allOrNone === true || body.allOrNone === 'true', records: body.records };
}

/** The object a collection record belongs to: its attributes.type (required on create and update). */
function objectFromAttributes(record: unknown): SandboxObject {
  const type = (record as { attributes?: { type?: unknown } } | null)?.attributes?.type;
  if (typeof type !== 'string') throw new RequestError(400, 'INVALID_TYPE', 'Must specify a type in attributes');
  const object = findObject(type);
  if (!object) throw new RequestError(400, 'INVALID_TYPE', `sObject type '${type}' is not supported.`);
  return object;
}

function renderResult(result: SaveResult, withCreated: boolean) {
  if (result.ok) return { id: result.id, success: true, errors: [], ...(withCreated ? { created: result.created } : {}) };
  return { ...(result.id ? { id: result.id } : {}), success: false, errors: result.errors };
}

/** One save is one transaction: it holds the parents its rows lock until it answers (row-locks.ts). */
async function save(ctx: Ctx, body: CollectionBody, items: { input: RecordInput; mode: WriteMode }[], withCreated: boolean): Promise<Reply> {
  const transaction = ctx.state.rowLocks.begin();
  const results = saveRecords({ ...writeEnv(ctx), locks: transaction }, items, { allOrNone: body.allOrNone });
  await transaction.end();
  return json(200, results.map((r) => renderResult(r, withCreated)));
}

export function createMany(ctx: Ctx): Promise<Reply> {
  const body = collectionBody(ctx);
  const items = body.records.map((record) => {
    const { input } = recordFromJson(objectFromAttributes(record), record, ctx.body);
    return { input, mode: { kind: 'create' } as WriteMode };
  });
  return save(ctx, body, items, false);
}

export function updateMany(ctx: Ctx): Promise<Reply> {
  const body = collectionBody(ctx);
  const items = body.records.map((record) => {
    const { input, id } = recordFromJson(objectFromAttributes(record), record, ctx.body);
    return { input, mode: { kind: 'update', id } as WriteMode };
  });
  return save(ctx, body, items, false);
}

export function upsertMany(ctx: Ctx): Promise<Reply> {
  const object = objectOf(ctx);
  const keyField = findField(object, ctx.params.field!);
  if (!keyField || !isUpsertKey(keyField)) {
    throw new RequestError(404, 'NOT_FOUND', `Provided external ID field does not exist or is not accessible: ${ctx.params.field}`);
  }
  const body = collectionBody(ctx);
  const items = body.records.map((record) => {
    const { input } = recordFromJson(object, record, ctx.body);
    const key = input.values.get(keyField.name);
    input.values.delete(keyField.name);
    return { input, mode: { kind: 'upsert', keyField, key } as WriteMode };
  });
  return save(ctx, body, items, true);
}

/** DELETE /composite/sobjects?ids=a,b[&allOrNone=true]: each id names its object by its key prefix. */
export function deleteMany(ctx: Ctx): Reply {
  const ids = (ctx.url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
  if (ids.length > MAX_RECORDS) throw tooMany(MAX_RECORDS);
  const items = ids.map((raw) => {
    const id = canonicalId(raw);
    // An id of no known object still needs an object to fail against: its prefix will not match.
    const object = (id && objectByKeyPrefix(id)) || SALESFORCE_SANDBOX_SCHEMA.Account!;
    return { input: emptyInput(object), mode: { kind: 'delete', id: raw } as WriteMode };
  });
  const results = saveRecords(writeEnv(ctx), items, { allOrNone: ctx.url.searchParams.get('allOrNone') === 'true' });
  return json(200, results.map((r, i) => ({ ...renderResult(r, false), ...(r.ok ? {} : { id: ids[i] }) })));
}

/** POST /composite/sobjects/{T} {ids, fields} or GET ...?ids=&fields= : records in id order, null when missing. */
export function retrieveMany(ctx: Ctx): Reply {
  const object = objectOf(ctx);
  let ids: unknown;
  let fieldNames: unknown;
  if (ctx.method === 'GET') {
    ids = (ctx.url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
    fieldNames = (ctx.url.searchParams.get('fields') ?? '').split(',').filter(Boolean);
  } else {
    const body = parseJsonBody(ctx.body) as { ids?: unknown; fields?: unknown } | null;
    ids = body?.ids;
    fieldNames = body?.fields;
  }
  if (!Array.isArray(ids) || ids.length === 0) throw new RequestError(400, 'MISSING_ARGUMENT', 'ids is required');
  if (!Array.isArray(fieldNames) || fieldNames.length === 0) throw new RequestError(400, 'MISSING_ARGUMENT', 'fields is required');
  if (ids.length > MAX_RETRIEVE_IDS) throw tooMany(MAX_RETRIEVE_IDS);
  const fields = resolveFields(object, fieldNames.map(String));
  const table = ctx.state.store.table(object);
  return json(
    200,
    ids.map((raw) => {
      const id = canonicalId(raw);
      const record = id && id.startsWith(object.keyPrefix) ? table.get(id) : undefined;
      return record && !record.IsDeleted ? renderRecord(object, record, fields, ctx.version) : null;
    }),
  );
}
