// Persistence for the Salesforce sandbox (the journalPath option): every insert, update and clear of
// the store is appended to a JSON-lines journal before the request that made it is answered, so a
// sandbox killed with SIGKILL and started again on the same file holds every record it acknowledged.
// Sessions, cursors, bulk jobs, call counts and faults are not kept: after a restart clients get 401
// INVALID_SESSION_ID and log in again, as after a real session loss.
import { openJournalFile, type JournalFile } from '../journal-file.ts';
import { idCounter } from './ids.ts';
import { findObject, orgObjects } from './schema.ts';
import type { Store, StoreChange } from './store.ts';

const KIND = 'salesforce-sandbox';
const VERSION = 1;

/** The first line: `idCounter` is the highest id counter ever issued, records of before a reset too. */
type Header = { journal: typeof KIND; version: typeof VERSION; idCounter: number };

function isHeader(entry: unknown): entry is Header {
  const header = entry as Header;
  return typeof header === 'object' && header !== null && header.journal === KIND && header.version === VERSION && Number.isInteger(header.idCounter);
}

function tableOf(store: Store, name: string, file: string) {
  const object = findObject(name);
  if (!object) throw new Error(`journal ${file} names an object ${name} the sandbox schema does not have`);
  return store.table(object);
}

function replay(store: Store, change: StoreChange, file: string) {
  if (change.op === 'insert') tableOf(store, change.object, file).insert(change.record);
  else if (change.op === 'update') tableOf(store, change.object, file).update(change.id, change.changes);
  else if (change.op === 'clear') store.clear();
  else throw new Error(`journal ${file} holds an entry the sandbox does not know: ${JSON.stringify(change)}`);
}

/**
 * Replays the journal at `file` (when there is one) into the empty `store`, compacts it to one
 * snapshot of the records, and from then on appends every change of the store to it.
 */
export function attachJournal(store: Store, file: string): JournalFile {
  const journal = openJournalFile(file);
  const [first, ...changes] = journal.entries;
  if (first !== undefined && !isHeader(first)) {
    journal.close();
    throw new Error(`${file} is not a Salesforce sandbox journal (version ${VERSION}); give the sandbox another journal file`);
  }
  let counter = first?.idCounter ?? 0;
  for (const change of changes) {
    replay(store, change as StoreChange, file);
    if ((change as StoreChange).op === 'insert') counter = Math.max(counter, idCounter((change as { record: { Id: string } }).record.Id));
  }
  store.continueIdsAfter(counter);

  // Compaction: one insert per record (deleted ones too: queryAll still finds them) replaces the history,
  // so the file grows with the data, not with every save ever made.
  const snapshot: unknown[] = [{ journal: KIND, version: VERSION, idCounter: counter } satisfies Header];
  // orgObjects(): the model's objects and the standard ones beside it (permission sets, the user).
  for (const object of orgObjects()) {
    for (const record of store.table(object).all()) snapshot.push({ op: 'insert', object: object.name, record } satisfies StoreChange);
  }
  journal.rewrite(snapshot);
  store.onChange((change) => journal.append(change));
  return journal;
}
