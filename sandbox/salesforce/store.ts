// In-memory records, one table per object, with an index per unique field. Unique values are
// matched case-insensitively, as Salesforce's default for unique external ids ("ABC" = "abc").
// Whether a field is unique starts as the schema says and can be changed per org (Setup's "Unique"
// checkbox), so an external id that is not unique can be reproduced.
import { createIdFactory, idCounter } from './ids.ts';
import { SALESFORCE_SANDBOX_SCHEMA, type SandboxField, type SandboxObject } from './schema.ts';

export type StoredRecord = Record<string, unknown> & { Id: string };

export type Table = {
  readonly object: SandboxObject;
  /** Every record, deleted ones too (IsDeleted), in creation order. */
  all(): IterableIterator<StoredRecord>;
  get(id: string): StoredRecord | undefined;
  /** The record holding `value` in the field `field` (the oldest one if it is not unique), deleted ones excluded. */
  findUnique(field: SandboxField, value: string): StoredRecord | undefined;
  /** Every live record holding `value` in `field`, matched as unique values are (case-insensitively). */
  findAll(field: SandboxField, value: string): StoredRecord[];
  /** Whether this org enforces unique values in `field` now. */
  isUnique(field: SandboxField): boolean;
  /** Setup's "Unique" checkbox; turning it on fails while live records share a value. */
  setUnique(field: SandboxField, unique: boolean): void;
  insert(record: StoredRecord): void;
  update(id: string, changes: Record<string, unknown>): StoredRecord;
  size(): number;
};

export type Store = {
  table(object: SandboxObject): Table;
  newId(object: SandboxObject): string;
  clear(): void;
  /** Ids issued from now on count on after `counter`, unless ids beyond it were issued already (a restart continues after the journal's ids). */
  continueIdsAfter(counter: number): void;
  /** `listener` sees every later insert, update and clear before it is applied (the journal). */
  onChange(listener: (change: StoreChange) => void): void;
};

/** One change of the store: the only ways records ever change, so a journal of them can replay it. */
export type StoreChange =
  | { op: 'insert'; object: string; record: StoredRecord }
  | { op: 'update'; object: string; id: string; changes: Record<string, unknown> }
  | { op: 'clear' };

type Listener = (change: StoreChange) => void;

const uniqueKey = (value: unknown) => String(value).toLowerCase();

function createTable(object: SandboxObject, changed: Listener): Table {
  const records = new Map<string, StoredRecord>();
  let uniqueFields = object.fields.filter((f) => f.unique);
  const indexes = new Map<string, Map<string, string>>(uniqueFields.map((f) => [f.name, new Map()]));
  const live = () => [...records.values()].filter((record) => !record.IsDeleted);
  const findAll = (field: SandboxField, value: string) => live().filter((record) => record[field.name] !== null && record[field.name] !== undefined && uniqueKey(record[field.name]) === uniqueKey(value));

  const index = (record: StoredRecord, add: boolean) => {
    for (const f of uniqueFields) {
      const value = record[f.name];
      if (value === null || value === undefined) continue;
      if (add) indexes.get(f.name)!.set(uniqueKey(value), record.Id);
      else indexes.get(f.name)!.delete(uniqueKey(value));
    }
  };

  return {
    object,
    all: () => records.values(),
    get: (id) => records.get(id),
    findAll,
    isUnique: (field) => uniqueFields.some((f) => f.name === field.name),
    setUnique(field, unique) {
      if (unique === uniqueFields.some((f) => f.name === field.name)) return;
      if (!unique) {
        uniqueFields = uniqueFields.filter((f) => f.name !== field.name);
        indexes.delete(field.name);
        return;
      }
      const byValue = new Map<string, string>();
      for (const record of live()) {
        const value = record[field.name];
        if (value === null || value === undefined) continue;
        const other = byValue.get(uniqueKey(value));
        if (other) throw new Error(`${object.name}.${field.name} cannot be made unique: records ${other} and ${record.Id} share the value ${String(value)}`);
        byValue.set(uniqueKey(value), record.Id);
      }
      uniqueFields = [...uniqueFields, field];
      indexes.set(field.name, byValue);
    },
    findUnique(field, value) {
      if (!uniqueFields.some((f) => f.name === field.name)) return findAll(field, value)[0];
      const id = indexes.get(field.name)?.get(uniqueKey(value));
      const record = id === undefined ? undefined : records.get(id);
      return record && !record.IsDeleted ? record : undefined;
    },
    insert(record) {
      changed({ op: 'insert', object: object.name, record });
      records.set(record.Id, record);
      index(record, true);
    },
    update(id, changes) {
      const current = records.get(id);
      if (!current) throw new Error(`no ${object.name} ${id}`);
      changed({ op: 'update', object: object.name, id, changes });
      index(current, false);
      const next = { ...current, ...changes, Id: id } as StoredRecord;
      records.set(id, next);
      index(next, true);
      return next;
    },
    size: () => records.size,
  };
}

export function createStore(): Store {
  let newIdFor = createIdFactory(); // never reset: an id from before a reset never comes back
  let issued = 0; // the highest id counter handed out or continued after
  let listener: Listener = () => undefined;
  const changed: Listener = (change) => listener(change);
  let tables = new Map<string, Table>();
  const reset = () => {
    tables = new Map(Object.values(SALESFORCE_SANDBOX_SCHEMA).map((o) => [o.name, createTable(o, changed)]));
  };
  reset();
  return {
    // An object the org's Tooling API made after start gets its table on first use.
    table: (object) => tables.get(object.name) ?? tables.set(object.name, createTable(object, changed)).get(object.name)!,
    newId(object) {
      const id = newIdFor(object.keyPrefix);
      issued = Math.max(issued, idCounter(id));
      return id;
    },
    clear() {
      changed({ op: 'clear' });
      reset();
    },
    continueIdsAfter(counter) {
      if (counter <= issued) return; // never back: an id is never issued twice
      issued = counter;
      newIdFor = createIdFactory(counter);
    },
    onChange(next) {
      listener = next;
    },
  };
}
