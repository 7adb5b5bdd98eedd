// The organisation's data: table metadata (standard tables plus whatever the metadata API created)
// and one generic store of rows per table. Every change is reported to listeners (the journal);
// changes made inside a transaction (a $batch change set) are reported only when it commits, and
// undone when it fails.
import { standardEntities, type EntityDef } from './schema.ts';

export type Lookup = { id: string; table: string };
export type Row = Record<string, unknown>;
export type StoreChange = { op: 'entity'; entity: EntityDef } | { op: 'row'; table: string; row: Row } | { op: 'delete'; table: string; id: string } | { op: 'clear' };

type Undo = () => void;

/** How the value index files a column's value: loosely (lookups by id, text without case), so its
 * candidates are a superset that callers narrow with Dataverse's own comparison. */
const indexKey = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'object' && 'id' in value) return String((value as Lookup).id).toLowerCase();
  return String(value).toLowerCase();
};

export function createStore() {
  let entities = new Map<string, EntityDef>(standardEntities().map((e) => [e.LogicalName, e]));
  let rows = new Map<string, Map<string, Row>>();
  // table -> column -> filed value -> row ids; built for a column the first time it is looked up
  // by (alternate keys), then kept in step, so a key lookup does not scan a 100,000-row table.
  let indexes = new Map<string, Map<string, Map<string, Set<string>>>>();
  let version = 1000;
  const listeners: ((change: StoreChange) => void)[] = [];
  let tx: { undo: Undo[]; pending: StoreChange[] } | undefined;

  const emit = (change: StoreChange, undo: Undo) => {
    if (tx) {
      tx.undo.push(undo);
      tx.pending.push(change);
    } else for (const listener of listeners) listener(change);
  };
  const tableRows = (table: string) => {
    let map = rows.get(table);
    if (!map) rows.set(table, (map = new Map()));
    return map;
  };
  const file = (index: Map<string, Set<string>>, value: unknown, id: string, add: boolean) => {
    const key = indexKey(value);
    if (key === undefined) return;
    let ids = index.get(key);
    if (add) {
      if (!ids) index.set(key, (ids = new Set()));
      ids.add(id);
    } else if (ids) {
      ids.delete(id);
      if (ids.size === 0) index.delete(key);
    }
  };
  const reindex = (table: string, id: string, before: Row | undefined, after: Row | undefined) => {
    const columns = indexes.get(table);
    if (!columns) return;
    for (const [column, index] of columns) {
      if (before) file(index, before[column], id, false);
      if (after) file(index, after[column], id, true);
    }
  };
  // Every change to a table's rows goes through these two, so the indexes never go stale.
  const setRow = (table: string, id: string, row: Row) => {
    const map = tableRows(table);
    reindex(table, id, map.get(id), row);
    map.set(id, row);
  };
  const deleteRow = (table: string, id: string) => {
    const map = tableRows(table);
    reindex(table, id, map.get(id), undefined);
    map.delete(id);
  };
  const columnIndex = (table: string, column: string) => {
    let columns = indexes.get(table);
    if (!columns) indexes.set(table, (columns = new Map()));
    let index = columns.get(column);
    if (!index) {
      columns.set(column, (index = new Map()));
      for (const [id, row] of tableRows(table)) file(index, row[column], id, true);
    }
    return index;
  };

  return {
    entity: (logicalName: string) => entities.get(logicalName),
    entityBySet: (set: string) => [...entities.values()].find((e) => e.EntitySetName === set),
    entities: () => [...entities.values()],
    putEntity(entity: EntityDef) {
      const before = entities.get(entity.LogicalName);
      entities.set(entity.LogicalName, entity);
      emit({ op: 'entity', entity }, () => (before ? entities.set(before.LogicalName, before) : entities.delete(entity.LogicalName)));
    },
    rows: (table: string) => [...tableRows(table).values()],
    get: (table: string, id: string) => tableRows(table).get(id),
    /** The rows whose `column` may equal `value` (loosely: text without case, lookups by id); the
     * caller applies the exact comparison. */
    candidates(table: string, column: string, value: unknown): Row[] {
      const key = indexKey(value);
      if (key === undefined) return [];
      const map = tableRows(table);
      return [...(columnIndex(table, column).get(key) ?? [])].map((id) => map.get(id)!).filter(Boolean);
    },
    put(table: string, id: string, row: Row) {
      const before = tableRows(table).get(id);
      setRow(table, id, row);
      const v = Number(row.versionnumber);
      if (v > version) version = v;
      emit({ op: 'row', table, row }, () => (before ? setRow(table, id, before) : deleteRow(table, id)));
    },
    remove(table: string, id: string) {
      const before = tableRows(table).get(id);
      if (!before) return;
      deleteRow(table, id);
      emit({ op: 'delete', table, id }, () => setRow(table, id, before));
    },
    /** The next row version (Dataverse's rowversion: one counter for the whole organisation). */
    nextVersion: () => ++version,
    /** Runs `fn` atomically: when it throws, every change it made is undone and none is reported. */
    transaction<T>(fn: () => T): T {
      if (tx) return fn();
      tx = { undo: [], pending: [] };
      const mine = tx;
      try {
        const result = fn();
        tx = undefined;
        for (const change of mine.pending) for (const listener of listeners) listener(change);
        return result;
      } catch (error) {
        tx = undefined;
        for (const undo of mine.undo.reverse()) undo();
        throw error;
      }
    },
    clear() {
      entities = new Map(standardEntities().map((e) => [e.LogicalName, e]));
      rows = new Map();
      indexes = new Map();
      for (const listener of listeners) listener({ op: 'clear' });
    },
    /** Replays a journal entry (reported to no listener). */
    apply(change: StoreChange) {
      if (change.op === 'entity') entities.set(change.entity.LogicalName, change.entity);
      else if (change.op === 'row') {
        const entity = entities.get(change.table);
        setRow(change.table, String(change.row[entity?.PrimaryIdAttribute ?? `${change.table}id`]), change.row);
        version = Math.max(version, Number(change.row.versionnumber) || 0);
      } else if (change.op === 'delete') deleteRow(change.table, change.id);
      else if (change.op === 'clear') {
        entities = new Map(standardEntities().map((e) => [e.LogicalName, e]));
        rows = new Map();
        indexes = new Map();
      } else throw new Error(`unknown journal entry ${JSON.stringify(change)}`);
    },
    version: () => version,
    continueVersionsAfter(v: number) {
      version = Math.max(version, v);
    },
    onChange(listener: (change: StoreChange) => void) {
      listeners.push(listener);
    },
  };
}

export type Store = ReturnType<typeof createStore>;
