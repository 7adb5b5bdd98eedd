// In-memory records, one table per object, with an index per unique field. Unique values are
// matched case-insensitively, as Salesforce's default for unique external ids ("ABC" = "abc").
import { createIdFactory } from './ids.ts';
import { SALESFORCE_SANDBOX_SCHEMA, type SandboxField, type SandboxObject } from './schema.ts';

export type StoredRecord = Record<string, unknown> & { Id: string };

export type Table = {
  readonly object: SandboxObject;
  /** Every record, deleted ones too (IsDeleted), in creation order. */
  all(): IterableIterator<StoredRecord>;
  get(id: string): StoredRecord | undefined;
  /** The record holding `value` in the unique field `field`, deleted ones excluded. */
  findUnique(field: SandboxField, value: string): StoredRecord | undefined;
  insert(record: StoredRecord): void;
  update(id: string, changes: Record<string, unknown>): StoredRecord;
  size(): number;
};

export type Store = {
  table(object: SandboxObject): Table;
  newId(object: SandboxObject): string;
  clear(): void;
  /** Ids issued from now on count on after `counter` (a restart continues after the journal's ids). */
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
  const uniqueFields = object.fields.filter((f) => f.unique);
  const indexes = new Map<string, Map<string, string>>(uniqueFields.map((f) => [f.name, new Map()]));

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
    findUnique(field, value) {
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
  let listener: Listener = () => undefined;
  const changed: Listener = (change) => listener(change);
  let tables = new Map<string, Table>();
  const reset = () => {
    tables = new Map(Object.values(SALESFORCE_SANDBOX_SCHEMA).map((o) => [o.name, createTable(o, changed)]));
  };
  reset();
  return {
    table: (object) => tables.get(object.name)!,
    newId: (object) => newIdFor(object.keyPrefix),
    clear() {
      changed({ op: 'clear' });
      reset();
    },
    continueIdsAfter(counter) {
      newIdFor = createIdFactory(counter);
    },
    onChange(next) {
      listener = next;
    },
  };
}
