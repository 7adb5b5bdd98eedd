// What of a page read through a query locator may move the window's cursor. Salesforce sorts a query's
// result when it runs; whether queryMore then answers each record's fields as they were then or as they
// are now is not documented (the sandbox answers them as they were). If as they are now, a record edited
// during the read comes back stamped after the window's end, out of its place in the order: its stamp
// must not become the cursor (which only moves forward), or the next window would start past records it
// never read. So: records stamped after `until` are left to the next window, and a page read through a
// locator whose stamps go backwards ends the locator's use: the read starts again with a fresh query at
// the stamp of the record found out of order. Stamps only: how a CRM collates ids (GUIDs, 15/18-character
// Salesforce ids) need not be JavaScript's string order.
import type { CrmRecord } from '../crm/connector.ts';

export type Position = { time: string; afterId?: string };

export type SettledPage = {
  /** The records to hand on, in the order read. */
  kept: CrmRecord[];
  /** Set when the order went backwards: where a fresh query starts (inclusive, no locator). */
  restartAt?: Position;
};

/**
 * `throughLocator`: the page continues an earlier query (queryMore), so its order is checked; a fresh
 * query's page is sorted by the CRM as it runs. A start without afterId is inclusive with a look-back,
 * so records before it are in order.
 */
export function settleWindowPage(records: CrmRecord[], stampOf: (record: CrmRecord) => Date | undefined, start: Position, until: Date, throughLocator: boolean): SettledPage {
  const kept: CrmRecord[] = [];
  let previous: number | undefined = throughLocator && start.afterId !== undefined ? Date.parse(start.time) : undefined;
  for (const record of records) {
    const stamp = stampOf(record);
    // A record without a readable stamp is handed on as before: the reader decides what it is.
    if (!stamp) {
      kept.push(record);
      continue;
    }
    const time = stamp.getTime();
    // Changed after the window's end: the next window reads it (its start is at or before `until`).
    if (time > until.getTime()) continue;
    if (throughLocator && previous !== undefined && time < previous) {
      // Out of order: a record before this one moved forward while the locator was read. Starting again
      // at this record's stamp (inclusive) reads it and every later one afresh; a few are read twice.
      return { kept, restartAt: { time: stamp.toISOString() } };
    }
    kept.push(record);
    previous = time;
  }
  return { kept };
}
