// Rows by URL: create (POST {set}), retrieve (GET {set}(key)), create-or-update with If-Match /
// If-None-Match (PATCH {set}(key)), delete, and queries (GET {set}). Keys are GUIDs or Active
// alternate keys. Writes answer 204 with OData-EntityId, or the row with return=representation.
import { DataverseError, odataError } from './errors.ts';
import { preferences, queryOptions, type ApiRequest, type Reply } from './http.ts';
import { checkKey, findRow, notFoundFor, type KeySpec } from './keys.ts';
import { requirePrivilege } from './privileges.ts';
import { entityContext, list, parseSelect, shapeRow } from './query.ts';
import type { EntityDef } from './schema.ts';
import type { Row } from './store.ts';
import { opportunityStateColumns } from './opportunity-states.ts';
import { taskStateColumns } from './task-states.ts';
import { columnsOf, createRow, keyColumns, parseBody, updateRow } from './writes.ts';
import { afterCatalogueWrite, beforeCatalogueDelete, catalogueColumns, takeCurrencyBind } from './catalogue.ts';

const entityId = (req: ApiRequest, entity: EntityDef, row: Row) => `${req.base}${entity.EntitySetName}(${row[entity.PrimaryIdAttribute]})`;

function written(req: ApiRequest, entity: EntityDef, row: Row, created: boolean): Reply {
  const location = entityId(req, entity, row);
  const headers = { 'OData-EntityId': location, Location: location };
  if (preferences(req.headers.prefer).get('return') === 'representation') {
    const options = queryOptions(req.query);
    parseSelect(entity, options.get('$select'));
    return { status: created ? 201 : 200, json: { '@odata.context': entityContext(req, entity, options), ...shapeRow(req, entity, row, options) }, headers: { ...headers, 'Preference-Applied': 'return=representation' } };
  }
  return { status: 204, headers };
}

export function create(req: ApiRequest, entity: EntityDef): Reply {
  // A currency bind is the catalogue's to resolve (currencies are not rows here: catalogue.ts).
  const { body, columns: currency } = takeCurrencyBind(req.state, entity, parseBody(entity, req.body));
  const columns = { ...taskStateColumns(entity, body, undefined, opportunityStateColumns(entity, body, undefined, columnsOf(req.state, entity, body, true))), ...currency };
  const row = req.state.store.transaction(() => {
    const made = createRow(req.state, entity, catalogueColumns(req.state, entity, columns, undefined));
    afterCatalogueWrite(req.state, entity, made, true);
    return made;
  });
  return written(req, entity, row, true);
}

export function retrieve(req: ApiRequest, entity: EntityDef, key: KeySpec): Reply {
  const row = findRow(req.state.store, entity, key);
  if (!row) throw notFoundFor(entity, key);
  const options = queryOptions(req.query);
  return { status: 200, json: { '@odata.context': entityContext(req, entity, options), ...shapeRow(req, entity, row, options) } };
}

const etagMatches = (ifMatch: string, row: Row) => ifMatch.trim() === '*' || ifMatch.split(',').some((t) => t.trim() === `W/"${row.versionnumber}"`);

export function upsert(req: ApiRequest, entity: EntityDef, key: KeySpec): Reply {
  checkKey(entity, key);
  const { body, columns: currency } = takeCurrencyBind(req.state, entity, parseBody(entity, req.body));
  const existing = findRow(req.state.store, entity, key);
  const ifMatch = req.headers['if-match'];
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifMatch !== undefined) {
    if (!existing) throw notFoundFor(entity, key);
    if (!etagMatches(ifMatch, existing)) throw new DataverseError(412, '0x80060882', "The version of the existing record doesn't match the RowVersion property provided.");
  }
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() === '*' && existing) {
    throw new DataverseError(412, '0x80040237', 'A record with matching key values already exists.');
  }
  requirePrivilege(req.state, entity, existing ? 'Write' : 'Create');
  const columns = { ...taskStateColumns(entity, body, existing, opportunityStateColumns(entity, body, existing, columnsOf(req.state, entity, body, !existing))), ...currency };
  return req.state.store.transaction(() => {
    if (existing) return written(req, entity, updateRow(req.state, entity, existing, catalogueColumns(req.state, entity, columns, existing)), false);
    const fromKey = keyColumns(entity, key);
    const id = 'guid' in key ? key.guid : undefined;
    const made = createRow(req.state, entity, catalogueColumns(req.state, entity, { ...columns, ...fromKey }, undefined), id);
    afterCatalogueWrite(req.state, entity, made, true);
    return written(req, entity, made, true);
  });
}

export function remove(req: ApiRequest, entity: EntityDef, key: KeySpec): Reply {
  const row = findRow(req.state.store, entity, key);
  if (!row) throw notFoundFor(entity, key);
  beforeCatalogueDelete(entity, row);
  req.state.store.remove(entity.LogicalName, String(row[entity.PrimaryIdAttribute]));
  return { status: 204 };
}

/** `{set}` / `{set}(key)` requests. */
export function handleRecords(req: ApiRequest, entity: EntityDef, key: KeySpec | undefined, rest: string): Reply {
  if (rest) throw odataError(`Resource not found for the segment '${rest.replace(/^\//, '')}'.`, 404);
  if (req.method === 'GET' || req.method === 'POST' || req.method === 'DELETE') requirePrivilege(req.state, entity, req.method === 'GET' ? 'Read' : req.method === 'POST' ? 'Create' : 'Delete');
  if (!key) {
    if (req.method === 'GET') return list(req, entity);
    if (req.method === 'POST') return create(req, entity);
    throw new DataverseError(405, '0x80060888', `The requested resource does not support http method '${req.method}'.`);
  }
  switch (req.method) {
    case 'GET': return retrieve(req, entity, key);
    case 'PATCH': return upsert(req, entity, key);
    case 'DELETE': return remove(req, entity, key);
    default: throw new DataverseError(405, '0x80060888', `The requested resource does not support http method '${req.method}'.`);
  }
}
