// Persistence (the journalPath option): every change of the store (rows, deletions, metadata, reset)
// is appended to a JSON-lines journal before the request that made it is answered (a $batch change
// set's changes when it commits), so a sandbox killed with SIGKILL and started again on the same file
// holds every write it acknowledged. Tokens, budgets, counts and faults are not kept.
import { openJournalFile, type JournalFile } from '../journal-file.ts';
import type { Store, StoreChange } from './store.ts';

const KIND = 'dynamics-sandbox';
const VERSION = 1;
type Header = { journal: typeof KIND; version: typeof VERSION; highestVersion: number };

const isHeader = (entry: unknown): entry is Header =>
  typeof entry === 'object' && entry !== null && (entry as Header).journal === KIND && (entry as Header).version === VERSION;

export function attachJournal(store: Store, file: string): JournalFile {
  const journal = openJournalFile(file);
  const [first, ...changes] = journal.entries;
  if (first !== undefined && !isHeader(first)) {
    journal.close();
    throw new Error(`${file} is not a Dynamics sandbox journal (version ${VERSION}); give the sandbox another journal file`);
  }
  for (const change of changes) store.apply(change as StoreChange);
  // Row versions only grow, even across a reset.
  store.continueVersionsAfter(first?.highestVersion ?? 0);
  const snapshot: StoreChange[] = [];
  for (const entity of store.entities()) snapshot.push({ op: 'entity', entity });
  for (const entity of store.entities()) for (const row of store.rows(entity.LogicalName)) snapshot.push({ op: 'row', table: entity.LogicalName, row });
  journal.rewrite([{ journal: KIND, version: VERSION, highestVersion: store.version() } satisfies Header, ...snapshot]);
  store.onChange((change) => journal.append(change));
  return journal;
}
