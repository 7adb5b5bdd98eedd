// Completed and canceled activities are read-only in Dataverse: an update of a closed task's columns is
// refused, "Cannot update Closed or Cancelled Activity", unless it names the state (a re-open)
// (docs/crm-wire-behaviour.md, "Edits to completed tasks"). The timeline's tasks are mostly completed
// when made, and a seller completes or cancels the others, so a later write (an event whose words
// changed, a replay whose link was lost, a second backfill) meets closed tasks. Such a task is left as
// it is, and its record answered as written with the task's GUID; it is not re-opened, updated and
// closed again: a worker killed between those steps would leave it open, a seller's close would be
// undone and re-dated, and the timeline sets a task's state only when it makes it (mappings/dynamics/timeline.ts).
// The words of a closed task therefore stay those it was closed with.
import type { CrmRecord, UpsertResult } from '../connector.ts';
import { ID } from './reads.ts';

/** Tables whose closed rows Dataverse keeps read-only (activities the connector writes). */
export const READ_ONLY_WHEN_CLOSED: ReadonlySet<string> = new Set(['task']);

type Item = { sourceId: string; crmId?: string; externalIdField?: string; externalId?: string };
type Reader = { whereIn(object: string, field: string, values: string[], fields: string[], signal?: AbortSignal): Promise<CrmRecord[]> };

/** `states`: the statecode each item's row has (null: no row), as read here, so the write reads none of them again. */
export type ClosedSplit<T> = { writable: T[]; left: UpsertResult[]; states?: Map<string, number | null> };

/** Splits a write's items into those to send and those whose row is a closed activity (answered as written, untouched). */
export function createClosedActivities(reader: Reader) {
  return {
    async split<T extends Item>(table: string, items: T[], signal?: AbortSignal): Promise<ClosedSplit<T>> {
      if (!READ_ONLY_WHEN_CLOSED.has(table) || items.length === 0) return { writable: items, left: [] };
      const closedRow = new Map<string, string>();
      const states = new Map<string, number | null>();
      const note = (item: T, row: CrmRecord | undefined) => states.set(item.sourceId, row && typeof row.statecode === 'number' ? row.statecode : null);
      // Linked items: their rows by GUID (one read).
      const guids = items.filter((item) => item.crmId).map((item) => item.crmId!);
      const byGuid = new Map<string, CrmRecord>();
      if (guids.length) for (const row of await reader.whereIn(table, ID, guids, ['statecode'], signal)) byGuid.set(String(row[ID]).toLowerCase(), row);
      for (const item of items) {
        const row = item.crmId ? byGuid.get(item.crmId.toLowerCase()) : undefined;
        if (item.crmId) note(item, row);
        if (row && typeof row.statecode === 'number' && row.statecode !== 0) closedRow.set(item.sourceId, String(row[ID]));
      }
      // Items written by their key: their rows by key value (one read per key column).
      const byColumn = Map.groupBy(items.filter((item) => !item.crmId && item.externalIdField && item.externalId), (item) => item.externalIdField!);
      for (const [column, keyed] of byColumn) {
        const rows = new Map((await reader.whereIn(table, column, keyed.map((item) => item.externalId!), ['statecode', column], signal)).map((row) => [String(row[column]), row]));
        for (const item of keyed) {
          const row = rows.get(item.externalId!);
          note(item, row);
          if (row && typeof row.statecode === 'number' && row.statecode !== 0) closedRow.set(item.sourceId, String(row[ID]));
        }
      }
      return {
        writable: items.filter((item) => !closedRow.has(item.sourceId)),
        left: [...closedRow].map(([sourceId, crmId]) => ({ sourceId, ok: true as const, crmId, created: false })),
        states,
      };
    },
  };
}
