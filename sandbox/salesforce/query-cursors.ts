// Server-side query cursors behind nextRecordsUrl. A locator is `01g<id>-<offset>` (no '/', since
// jsforce keeps only the last path segment of nextRecordsUrl). As in Salesforce, a user keeps at most
// 10 open cursors (opening another drops the oldest) and a cursor unused for 15 minutes is gone. Each
// locator value is used once ("Use each queryLocator value only one time", SOAP API QueryLocator): a
// cursor answers only the locator it handed out last; an earlier one is INVALID_QUERY_LOCATOR.
import { randomBytes } from 'node:crypto';

const MAX_OPEN = 10;
const IDLE_MS = 15 * 60_000;

/** `next`: the offset of the one locator this cursor answers now (the last one handed out). */
type Cursor = { id: string; records: Record<string, unknown>[]; batchSize: number; lastUsed: number; next: number };

export function createCursors(options: { now: () => Date }) {
  const cursors = new Map<string, Cursor>();
  const sweep = () => {
    const now = options.now().getTime();
    for (const [id, c] of cursors) if (now - c.lastUsed > IDLE_MS) cursors.delete(id);
  };
  return {
    open(records: Record<string, unknown>[], batchSize: number, next: number): string {
      sweep();
      const id = `01g${randomBytes(12).toString('base64').replace(/[^A-Za-z0-9]/g, '0').slice(0, 15)}`;
      cursors.set(id, { id, records, batchSize, lastUsed: options.now().getTime(), next });
      while (cursors.size > MAX_OPEN) cursors.delete(cursors.keys().next().value!);
      return id;
    },
    get(id: string): Cursor | undefined {
      sweep();
      const cursor = cursors.get(id);
      if (cursor) cursor.lastUsed = options.now().getTime();
      return cursor;
    },
    /** A new locator of the cursor handed out: the one used to get it is spent. */
    handOut(id: string, next: number) {
      const cursor = cursors.get(id);
      if (cursor) cursor.next = next;
    },
    close(id: string) {
      cursors.delete(id);
    },
    clear() {
      cursors.clear();
    },
  };
}

export type Cursors = ReturnType<typeof createCursors>;
