// The organisation's data: table metadata (standard tables plus whatever the metadata API created)
// and one generic store of rows per table. Every change is reported to listeners (the journal);
// changes made inside a transaction (a $batch change set) are reported only when it commits, and
// undone when it fails.
import { standardEntities, type EntityDef } from './schema.ts';

export type Lookup = { id: string; table: string };
export type Row = Record<string, unknown>;
export type StoreChange = { op: 'entity'; entity: EntityDef } | { op: 'row'; table: string; row: Row } | { op: 'delete'; table: string; id: string } | { op: 'clear' };

type Undo = () => void;

export function createStore() {
  let entities = new Map<string, EntityDef>(standardEntities().map((e) => [e.LogicalName, e]));
  let rows = new Map<string, Map<string, Row>>();
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
    put(table: string, id: string, row: Row) {
      const map = tableRows(table);
      const before = map.get(id);
      map.set(id, row);
      const v = Number(row.versionnumber);
      if (v > version) version = v;
      emit({ op: 'row', table, row }, () => (before ? map.set(id, before) : map.delete(id)));
    },
    remove(table: string, id: string) {
      const map = tableRows(table);
      const before = map.get(id);
      if (!before) return;
      map.delete(id);
      emit({ op: 'delete', table, id }, () => map.set(id, before));
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
      for (const listener of listeners) listener({ op: 'clear' });
    },
    /** Replays a journal entry (reported to no listener). */
    apply(change: StoreChange) {
      if (change.op === 'entity') entities.set(change.entity.LogicalName, change.entity);
      else if (change.op === 'row') {
        const table = tableRows(change.table);
        const entity = entities.get(change.table);
        table.set(String(change.row[entity?.PrimaryIdAttribute ?? `${change.table}id`]), change.row);
        version = Math.max(version, Number(change.row.versionnumber) || 0);
      } else if (change.op === 'delete') tableRows(change.table).delete(change.id);
      else if (change.op === 'clear') {
        entities = new Map(standardEntities().map((e) => [e.LogicalName, e]));
        rows = new Map();
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
