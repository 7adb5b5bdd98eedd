// Persistence (the journalPath option): every change of the store (custom object schemas, property
// groups, records, properties, associations, pipelines, reset) is appended to a JSON-lines journal before the request that made
// it is answered, so a sandbox killed with SIGKILL and started again on the same file holds every
// write it acknowledged. Tokens, limits, counts and faults are not kept: OAuth clients refresh again.
import { openJournalFile, type JournalFile } from '../journal-file.ts';
import type { Store, StoreChange } from './store.ts';

const KIND = 'hubspot-sandbox';
const VERSION = 1;
type Header = { journal: typeof KIND; version: typeof VERSION; highestId: number };

const isHeader = (entry: unknown): entry is Header =>
  typeof entry === 'object' && entry !== null && (entry as Header).journal === KIND && (entry as Header).version === VERSION && Number.isInteger((entry as Header).highestId);

function replay(store: Store, change: StoreChange, file: string) {
  switch (change.op) {
    case 'schema':
      return store.putSchema(change.schema);
    case 'group':
      return store.putGroup(change.type, change.group);
    case 'record':
      return store.putRecord(change.type, change.record);
    case 'property':
      return store.putProperty(change.type, change.property);
    case 'association':
      return store.addAssociation(change.association);
    case 'pipeline':
      return store.putPipeline(change.pipeline);
    case 'clear':
      return store.clear();
    default:
      throw new Error(`journal ${file} holds an entry the HubSpot sandbox does not know: ${JSON.stringify(change)}`);
  }
}

/** The numeric ids an entry carries (records, pipelines and their stages, custom object types), so none is issued twice. */
function idsIn(change: StoreChange): number[] {
  const ids =
    change.op === 'record' ? [change.record.id] : change.op === 'pipeline' ? [change.pipeline.id, ...change.pipeline.stages.map((s) => s.id)] : change.op === 'schema' ? [change.schema.objectTypeId.slice(2)] : [];
  return ids.map(Number).filter(Number.isFinite);
}

/** Replays `file` into the fresh `store`, compacts it to one snapshot, then appends every change. */
export function attachJournal(store: Store, file: string): JournalFile {
  const journal = openJournalFile(file);
  const [first, ...changes] = journal.entries;
  if (first !== undefined && !isHeader(first)) {
    journal.close();
    throw new Error(`${file} is not a HubSpot sandbox journal (version ${VERSION}); give the sandbox another journal file`);
  }
  for (const change of changes) replay(store, change as StoreChange, file);
  // Ids are never issued twice, even for records made before a reset.
  store.continueIdsAfter(first?.highestId ?? 0);
  const snapshot: unknown[] = [];
  for (const schema of store.schemas()) snapshot.push({ op: 'schema', schema } satisfies StoreChange);
  for (const t of store.objectTypes()) {
    for (const group of store.groups(t.name)) snapshot.push({ op: 'group', type: t.name, group } satisfies StoreChange);
    for (const property of store.properties(t.name)) snapshot.push({ op: 'property', type: t.name, property } satisfies StoreChange);
    for (const record of store.records(t.name)) snapshot.push({ op: 'record', type: t.name, record } satisfies StoreChange);
  }
  for (const pipeline of store.pipelines()) snapshot.push({ op: 'pipeline', pipeline } satisfies StoreChange);
  for (const association of store.allAssociations()) snapshot.push({ op: 'association', association } satisfies StoreChange);
  const highest = changes.reduce<number>((max, c) => Math.max(max, ...idsIn(c as StoreChange)), store.highestId());
  store.continueIdsAfter(highest);
  journal.rewrite([{ journal: KIND, version: VERSION, highestId: highest } satisfies Header, ...snapshot]);
  store.onChange((change) => {
    journal.append(change);
  });
  return journal;
}
