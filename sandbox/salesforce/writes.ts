// The save engine every write path shares (single-record REST, sObject collections, Bulk API 2.0):
// find the target (create, update by Id, upsert by external id), resolve parents given by external
// id, validate, check uniqueness, then apply — all records or, with allOrNone, none.
import { errors, type RecordError } from './errors.ts';
import { canonicalId, USER_ID } from './ids.ts';
import type { SandboxField, SandboxObject } from './schema.ts';
import type { Store, StoredRecord } from './store.ts';
import { parentsOf, unableToLockRow, type RowLockTaker } from './row-locks.ts';
import { validateRecord } from './validation.ts';
import { permissionRecordErrors } from './permissions.ts';
import { formatDateTime } from './values.ts';
import { afterCatalogueSaves, catalogueRules, newCatalogueCall, type AppliedSave } from './catalogue.ts';

/** A parent named by a key of its own: `Account: {Commerce_Buyer_Id__c: 'b-1'}` or `Account__r.Ext__c`. */
export type ParentKey = { field: SandboxField; parent: SandboxObject; keyField: SandboxField; value: string | null };

/** One record as read off the wire, before any lookup. */
export type RecordInput = {
  object: SandboxObject;
  values: Map<string, unknown>; // canonical field name -> stored form
  parents: ParentKey[];
  /** Problems already found while reading (Bulk API cells that are not of the field's type). */
  errors: RecordError[];
};

export type WriteMode =
  | { kind: 'create' }
  | { kind: 'update'; id: unknown }
  | { kind: 'upsert'; keyField: SandboxField; key: unknown }
  | { kind: 'delete'; id: unknown };

export type SaveResult = { ok: true; id: string; created: boolean } | { ok: false; id?: string; errors: RecordError[] };

export type WriteEnv = {
  store: Store;
  now: () => Date;
  /** Row locks (row-locks.ts): a row whose parent cannot be locked fails with UNABLE_TO_LOCK_ROW. */
  locks?: RowLockTaker;
};

type Plan = { object: SandboxObject; id: string; existing: StoredRecord | undefined; changes: Record<string, unknown>; delete: boolean };

const blankKey = (value: unknown) => value === null || value === undefined || String(value).trim() === '';

export const emptyInput = (object: SandboxObject): RecordInput => ({ object, values: new Map(), parents: [], errors: [] });

/** Saves `items` in order and answers one result per item, in the same order. */
export function saveRecords(env: WriteEnv, items: { input: RecordInput; mode: WriteMode }[], options: { allOrNone: boolean }): SaveResult[] {
  const { store } = env;
  // An external id that appears twice in one call matches no single record: every copy fails.
  const keyCounts = new Map<string, number>();
  for (const { mode } of items) {
    if (mode.kind === 'upsert' && mode.keyField.name !== 'Id' && !blankKey(mode.key)) {
      const k = String(mode.key).toLowerCase();
      keyCounts.set(k, (keyCounts.get(k) ?? 0) + 1);
    }
  }
  // Unique values taken by earlier records of this call, so two records cannot claim one value.
  const claims = new Map<string, string>();
  // Permission rows (a permission set's field, object or assignee) taken by earlier records of this call.
  const permissionRows = new Set<string>();
  // Price book entries and Opportunity price books settled by earlier records of this call (catalogue.ts).
  const catalogueCall = newCatalogueCall();

  const prepare = (input: RecordInput, mode: WriteMode): Plan | { failed: RecordError[]; id?: string } => {
    if (input.errors.length > 0) return { failed: input.errors };
    const { object } = input;
    const table = store.table(object);
    let existing: StoredRecord | undefined;

    if (mode.kind === 'create') {
      if (input.values.has('Id')) return { failed: [errors.idOnInsert()] };
    } else if (mode.kind === 'update' || mode.kind === 'delete') {
      if (blankKey(mode.id)) return { failed: [errors.missingId()] };
      const id = canonicalId(mode.id);
      if (!id || !id.startsWith(object.keyPrefix)) return { failed: [errors.malformedRecordId(String(mode.id))] };
      existing = table.get(id);
      if (!existing) return { failed: [errors.unknownRecord()] };
      if (existing.IsDeleted) return { failed: [errors.entityDeleted()], id };
      if (mode.kind === 'delete') return { object, id, existing, changes: {}, delete: true };
    } else {
      if (blankKey(mode.key)) return { failed: [errors.missingExternalId(mode.keyField)] };
      const key = String(mode.key);
      if (mode.keyField.name === 'Id') {
        const id = canonicalId(key);
        if (!id || !id.startsWith(object.keyPrefix)) return { failed: [errors.malformedRecordId(key)] };
        existing = table.get(id);
        if (!existing) return { failed: [errors.unknownRecord()] };
        if (existing.IsDeleted) return { failed: [errors.entityDeleted()], id };
      } else {
        if ((keyCounts.get(key.toLowerCase()) ?? 0) > 1) return { failed: [errors.duplicateExternalId(key)] };
        // An external id the org does not keep unique can match several records: Salesforce refuses to pick one.
        const matches = table.isUnique(mode.keyField) ? [] : table.findAll(mode.keyField, key);
        if (matches.length > 1) return { failed: [errors.externalIdMatchesMany(object, mode.keyField, matches.map((m) => m.Id))] };
        existing = table.findUnique(mode.keyField, key);
      }
    }

    // System fields are never writable; a create-only field (set directly or through its parent's key)
    // only while the record is being made.
    const named = [...input.values.keys()].map((name) => object.fields.find((f) => f.name === name)!);
    const readOnly = [...named, ...input.parents.map((p) => p.field)].filter((f) => (f.system && f.name !== 'Id') || f.formula !== undefined || (f.createOnly && existing) || f.readOnlyByPermission);
    if (readOnly.length > 0) return { failed: [errors.notWritable(readOnly)], id: existing?.Id };

    const changes: Record<string, unknown> = {};
    for (const [name, value] of input.values) if (name !== 'Id') changes[name] = value;
    if (mode.kind === 'upsert' && mode.keyField.name !== 'Id' && !existing) changes[mode.keyField.name] = String(mode.key);

    const failed: RecordError[] = [];
    for (const parentKey of input.parents) {
      if (parentKey.value === null) {
        changes[parentKey.field.name] = null;
        continue;
      }
      const parentTable = store.table(parentKey.parent);
      const parent =
        parentKey.keyField.name === 'Id'
          ? parentTable.get(canonicalId(parentKey.value) ?? '')
          : parentTable.findUnique(parentKey.keyField, parentKey.value);
      if (!parent || parent.IsDeleted) failed.push(errors.foreignKeyNotFound(parentKey.parent, parentKey.keyField, parentKey.value));
      else changes[parentKey.field.name] = parent.Id;
    }
    if (failed.length > 0) return { failed, id: existing?.Id };

    // The catalogue's rules come first: an opportunity product without a price book entry is refused as
    // Salesforce refuses it, not as a missing required field; they add what Salesforce derives.
    const catalogue = catalogueRules(store, object, existing, changes, catalogueCall);
    if (catalogue.length > 0) return { failed: catalogue, id: existing?.Id };
    const invalid = validateRecord(store, object, existing, changes);
    if (invalid.length > 0) return { failed: invalid, id: existing?.Id };
    const refused = permissionRecordErrors(store, object, existing, changes, permissionRows);
    if (refused.length > 0) return { failed: refused, id: existing?.Id };
    const locked = env.locks?.take(parentsOf(object, existing, changes)) ?? [];
    if (locked.length > 0) return { failed: [unableToLockRow(locked)], id: existing?.Id };

    const id = existing?.Id ?? store.newId(object);
    for (const field of object.fields) {
      const value = changes[field.name];
      if (!table.isUnique(field) || value === null || value === undefined) continue;
      const holder = table.findUnique(field, String(value));
      const claimKey = `${object.name}.${field.name}:${String(value).toLowerCase()}`;
      const claimant = claims.get(claimKey);
      if (holder && holder.Id !== id) failed.push(errors.duplicateValue(field, holder.Id));
      else if (claimant && claimant !== id) failed.push(errors.duplicateValue(field, claimant));
    }
    if (failed.length > 0) return { failed, id: existing?.Id };
    for (const field of object.fields) {
      const value = changes[field.name];
      if (table.isUnique(field) && value !== null && value !== undefined) claims.set(`${object.name}.${field.name}:${String(value).toLowerCase()}`, id);
    }
    return { object, id, existing, changes, delete: false };
  };

  const prepared = items.map(({ input, mode }) => prepare(input, mode));
  const anyFailed = prepared.some((p) => 'failed' in p);
  if (options.allOrNone && anyFailed) {
    return prepared.map((p) =>
      'failed' in p
        ? { ok: false, id: p.id, errors: p.failed }
        : { ok: false, id: p.existing?.Id, errors: [errors.rolledBack()] },
    );
  }

  const stamp = formatDateTime(env.now().getTime());
  const applied: AppliedSave[] = [];
  const results = prepared.map((p): SaveResult => {
    if (!('failed' in p)) applied.push(p);
    if ('failed' in p) return { ok: false, id: p.id, errors: p.failed };
    const table = store.table(p.object);
    if (p.delete) {
      table.update(p.id, { IsDeleted: true, LastModifiedDate: stamp, SystemModstamp: stamp });
      return { ok: true, id: p.id, created: false };
    }
    if (p.existing) {
      // Every save moves LastModifiedDate and SystemModstamp, even one that changes no value.
      table.update(p.id, { ...p.changes, LastModifiedDate: stamp, SystemModstamp: stamp });
      return { ok: true, id: p.id, created: false };
    }
    const record: StoredRecord = { Id: p.id };
    for (const field of p.object.fields) record[field.name] = field.defaultValue; // null, or a checkbox's default
    Object.assign(record, p.changes, { Id: p.id, IsDeleted: false, CreatedDate: stamp, LastModifiedDate: stamp, SystemModstamp: stamp });
    // A record made without an owner is its maker's: the integration user's.
    if ('OwnerId' in record && !record.OwnerId) record.OwnerId = USER_ID;
    table.insert(record);
    return { ok: true, id: p.id, created: true };
  });
  afterCatalogueSaves(store, stamp, applied);
  return results;
}
