// One page of a CRM change window, for the activities that read CRM records page by page (co-sell
// flows, the stage sync's CRM side): the page, the cursor the next activity starts from, and whether
// the window is read. The cursor carries the CRM's query locator when it handed one out (Salesforce),
// so the next activity goes on reading the same query instead of querying again; what is stored in
// PostgreSQL stays the (time, id) position. And where a connection's first window starts.
import { recordId, recordStamp, type CrmConnector, type CrmRecord, type RecordFilter } from '../crm/connector.ts';
import { DEFAULT_COSELL_START_HORIZON_DAYS } from '../sync/connection-settings.ts';
import { guard } from './failures.ts';
import { settleWindowPage } from './window-page-order.ts';
import type { WireCursor } from './sync.ts';

export type WindowPageInput = { cursor: WireCursor; until: string; pageSize: number; fields: string[]; narrow?: RecordFilter };

export async function readWindowPage(crm: CrmConnector, object: string, input: WindowPageInput): Promise<{ page: CrmRecord[]; nextCursor: WireCursor; done: boolean }> {
  let told = false;
  let locator: string | undefined;
  const pages = crm
    .changedSince(object, {
      since: new Date(input.cursor.time),
      afterId: input.cursor.afterId,
      until: new Date(input.until),
      fields: input.fields,
      pageSize: input.pageSize,
      ...(input.narrow && { narrow: input.narrow }),
      ...(input.cursor.locator && { locator: input.cursor.locator }),
      onLocator: (next) => {
        told = true;
        locator = next;
      },
    })
    [Symbol.asyncIterator]();
  const first = await guard(() => pages.next());
  await pages.return?.(undefined);
  const read: CrmRecord[] = first.done ? [] : first.value;
  // Never a cursor past `until`, nor one taken from a record out of order (window-page-order.ts).
  const { kept: page, restartAt } = settleWindowPage(read, (record) => recordStamp(crm, record), input.cursor, new Date(input.until), input.cursor.locator !== undefined);
  if (restartAt) return { page, nextCursor: restartAt, done: false };
  const last = page.at(-1);
  const position: WireCursor = last ? { time: recordStamp(crm, last)!.toISOString(), afterId: recordId(crm, last) } : { time: input.cursor.time, ...(input.cursor.afterId !== undefined && { afterId: input.cursor.afterId }) };
  const nextCursor: WireCursor = { ...position, ...(locator && { locator }) };
  // A CRM that hands out locators says itself whether more follows: Salesforce treats the batch size as
  // a suggestion and may answer fewer records with more to come, and a full last page needs no empty read.
  const done = told ? locator === undefined : read.length < input.pageSize;
  return { page, nextCursor, done };
}

/**
 * Where a window starts: after the stored position, or, for a connection that has none yet, at the
 * co-sell horizon (`cosell.startHorizonDays` before now) rather than at 1970: a first read of every
 * record the org ever changed is a table scan Salesforce may refuse with QUERY_TIMEOUT.
 */
export function windowStart(stored: Date | undefined, now: Date, horizonDays = DEFAULT_COSELL_START_HORIZON_DAYS): WireCursor {
  if (stored) return { time: stored.toISOString() };
  return { time: new Date(now.getTime() - horizonDays * 86_400_000).toISOString() };
}

/** One page of a window as the activities read it: what one read for every co-sell pass hands each (activities/cosell-window.ts). */
export type WindowPage = Awaited<ReturnType<typeof readWindowPage>>;
