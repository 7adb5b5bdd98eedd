// Writing rows: the body's columns checked and converted, lookups set with nav@odata.bind (by GUID
// or alternate key, relative or absolute URLs) or cleared with null, alternate keys kept unique, and
// the server's columns (createdon, modifiedon, versionnumber, statecode/statuscode, fullname) set.
import { randomUUID } from 'node:crypto';
import { DataverseError, duplicateKey, payloadError } from './errors.ts';
import { findRow, notFoundFor, parseResourcePath, type KeySpec } from './keys.ts';
import { requirePrivilege, userIdOf } from './privileges.ts';
import { isLookup, type EntityDef } from './schema.ts';
import type { SandboxState } from './state.ts';
import type { Lookup, Row } from './store.ts';
import { convertValue, isoSeconds } from './values.ts';

export function parseBody(entity: EntityDef, body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body || '{}');
  } catch (error) {
    throw payloadError(entity.EntitySetName, `Invalid JSON. ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw payloadError(entity.EntitySetName, 'A resource was expected: the payload is not a JSON object.');
  return parsed as Record<string, unknown>;
}

const undeclared = (entity: EntityDef, name: string) =>
  payloadError(entity.EntitySetName, `An undeclared property '${name}' which only has property annotations in the payload but no property value was found in the payload. In OData, only declared navigation properties and declared named streams can be represented as properties without values.`);

/** Resolves a bind value (`/accounts(<guid>)`, `accounts(k='v')`, an absolute URL) to a lookup. */
export function resolveBind(state: SandboxState, entity: EntityDef, nav: string, value: string): Lookup {
  const rel = entity.ManyToOneRelationships.find((r) => r.ReferencingEntityNavigationPropertyName === nav)!;
  const marker = '/api/data/v9.2/';
  const at = value.indexOf(marker);
  const path = at >= 0 ? value.slice(at + marker.length) : value.replace(/^\/+/, '');
  const resource = parseResourcePath(path);
  const target = state.store.entityBySet(resource.segment);
  if (!target || !resource.key || resource.rest) throw payloadError(entity.EntitySetName, `The reference '${value}' in '${nav}@odata.bind' is not a valid entity reference.`);
  if (target.LogicalName !== rel.ReferencedEntity) throw payloadError(entity.EntitySetName, `The navigation property '${nav}' refers to type 'Microsoft.Dynamics.CRM.${rel.ReferencedEntity}', not '${target.LogicalName}' ('${value}').`);
  // Linking needs Append on the record and AppendTo on the one it points at (privileges.ts).
  requirePrivilege(state, entity, 'Append');
  requirePrivilege(state, target, 'AppendTo');
  const row = findRow(state.store, target, resource.key);
  if (!row) throw notFoundFor(target, resource.key);
  return { id: String(row[target.PrimaryIdAttribute]), table: target.LogicalName };
}

/** The columns a body sets (stored form), checked as Dataverse checks them. */
export function columnsOf(state: SandboxState, entity: EntityDef, body: Record<string, unknown>, creating: boolean): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(body)) {
    if (name.startsWith('@')) continue;
    const at = name.indexOf('@');
    if (at >= 0) {
      const prop = name.slice(0, at);
      const annotation = name.slice(at + 1);
      if (annotation !== 'odata.bind') continue;
      const rel = entity.ManyToOneRelationships.find((r) => r.ReferencingEntityNavigationPropertyName === prop);
      if (!rel) throw undeclared(entity, prop);
      if (value === null) out[rel.ReferencingAttribute] = null;
      else if (typeof value !== 'string') throw payloadError(entity.EntitySetName, `The value of '${name}' must be an entity reference (a URL).`);
      else out[rel.ReferencingAttribute] = resolveBind(state, entity, prop, value);
      continue;
    }
    const attribute = entity.Attributes.find((a) => a.LogicalName === name);
    if (!attribute || isLookup(attribute)) {
      if (entity.ManyToOneRelationships.some((r) => r.ReferencingEntityNavigationPropertyName === name)) {
        throw payloadError(entity.EntitySetName, `A 'PrimitiveValue' node with non-null value was found when trying to read the value of the navigation property '${name}'; however, a 'StartArray' node, a 'StartObject' node, or a 'PrimitiveValue' node with null value was expected.`);
      }
      throw payloadError(entity.EntitySetName, `The property '${name}' does not exist on type 'Microsoft.Dynamics.CRM.${entity.LogicalName}'. Make sure to only use property names that are defined by the type or mark the type as open type.`);
    }
    const converted = convertValue(entity, attribute, value);
    if (attribute.computed || (creating ? !attribute.IsValidForCreate && !attribute.IsPrimaryId : !attribute.IsValidForUpdate)) continue; // read-only columns are ignored
    out[name] = converted;
  }
  return out;
}

function checkUnique(state: SandboxState, entity: EntityDef, id: string, row: Row) {
  // Only a built (Active) key's index enforces uniqueness.
  for (const key of entity.Keys.filter((k) => k.EntityKeyIndexStatus === 'Active')) {
    const values = key.KeyAttributes.map((a) => row[a]);
    if (values.some((v) => v === null || v === undefined)) continue;
    const norm = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v && typeof v === 'object' ? (v as Lookup).id : v);
    const clash = state.store.candidates(entity.LogicalName, key.KeyAttributes[0]!, values[0]).find((other) => other[entity.PrimaryIdAttribute] !== id && key.KeyAttributes.every((a, i) => norm(other[a]) === norm(values[i])));
    if (clash) throw duplicateKey(key.DisplayName, key.KeyAttributes.map((a) => entity.Attributes.find((x) => x.LogicalName === a)?.SchemaName ?? a).join(', '));
  }
}

function computed(entity: EntityDef, row: Row) {
  if (entity.Attributes.some((a) => a.LogicalName === 'fullname' && a.computed)) {
    row.fullname = [row.firstname, row.lastname].filter((v) => typeof v === 'string' && v).join(' ') || null;
  }
}

/** Creates a row from checked columns; `keyValues` (from an upsert's URL) are written too. */
export function createRow(state: SandboxState, entity: EntityDef, columns: Row, id?: string): Row {
  const rowId = (id ?? (columns[entity.PrimaryIdAttribute] as string | undefined) ?? randomUUID()).toLowerCase();
  if (state.store.get(entity.LogicalName, rowId)) throw new DataverseError(412, '0x80040237', 'Cannot insert duplicate key.');
  const now = isoSeconds(state.config.now());
  const row: Row = {};
  for (const a of entity.Attributes) row[a.LogicalName] = null;
  Object.assign(row, columns, {
    [entity.PrimaryIdAttribute]: rowId,
    createdon: now,
    modifiedon: now,
    statecode: typeof columns.statecode === 'number' ? columns.statecode : 0,
    statuscode: typeof columns.statuscode === 'number' ? columns.statuscode : 1,
    versionnumber: state.store.nextVersion(),
  });
  // A user-owned row is the caller's unless the create binds another owner, as Dataverse makes it.
  if (entity.Attributes.some((a) => a.LogicalName === 'ownerid') && !row.ownerid) row.ownerid = { id: userIdOf(state), table: 'systemuser' };
  computed(entity, row);
  checkUnique(state, entity, rowId, row);
  state.store.put(entity.LogicalName, rowId, row);
  return row;
}

export function updateRow(state: SandboxState, entity: EntityDef, existing: Row, columns: Row): Row {
  const id = String(existing[entity.PrimaryIdAttribute]);
  state.plugins.onUpdate(entity.LogicalName, id);
  const { [entity.PrimaryIdAttribute]: _ignored, ...rest } = columns;
  const row: Row = { ...existing, ...rest, modifiedon: isoSeconds(state.config.now()), versionnumber: state.store.nextVersion() };
  computed(entity, row);
  checkUnique(state, entity, id, row);
  state.store.put(entity.LogicalName, id, row);
  return row;
}

/** The columns an alternate key in the URL names, converted to the attributes' types. */
export function keyColumns(entity: EntityDef, key: KeySpec): Row {
  if ('guid' in key) return { [entity.PrimaryIdAttribute]: key.guid };
  const out: Row = {};
  for (const [name, value] of Object.entries(key.values)) {
    const attribute = entity.Attributes.find((a) => a.LogicalName === name)!;
    out[name] = value === null ? null : convertValue(entity, attribute, attribute.AttributeType === 'Uniqueidentifier' ? String(value) : value);
  }
  return out;
}
