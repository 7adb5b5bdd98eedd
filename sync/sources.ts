// Reading a commerce-to-CRM flow's records, whatever the flow (its declaration says where from): one
// batch of the (lastUpdateTime, id) window, oldest first, and records by id (the notification path,
// dead-letter retries). Every reader heartbeats through `onProgress`, stops when the activity is
// cancelled, and hands back what it could not read with the reason instead of throwing.
import pLimit from 'p-limit';
import { changedSince, CommerceRecordError, q, sort, toDate, type CommerceClient, type Page } from '../commerce/index.ts';
import { FLOWS } from '../flows/index.ts';
import { ReadsAgainAsOtherRecords, type ByIdContext } from '../flows/types.ts';
import type { Entity } from '../mappings/types.ts';

/**
 * A position in the window: strictly after (time, afterId), then `skip` whole pages further. `skip`
 * moves past pages on which no row was readable (no id or time to stand on): they are dead-lettered,
 * and the connection goes on instead of stopping at them.
 */
export type Position = { time: Date; afterId?: string; skip?: number };
export type Window = { cursor: Position; until: Date };
export type ReadOptions = { signal?: AbortSignal; onProgress?: (detail: Record<string, unknown>) => void };

const WINDOW_ORDER = sort({ field: 'lastUpdateTime' }, { field: 'id' });

async function first<T>(pages: AsyncGenerator<Page<T>>): Promise<Page<T>> {
  const next = await pages.next();
  await pages.return(undefined);
  return next.done ? { records: [], rejected: [], position: 1 } : next.value;
}

/** Always a first page of what remains of the window (after `skip` unreadable pages): the cursor moves, the page number does not. */
export function readWindowPage(commerce: CommerceClient, orgId: string, entity: Entity, window: Window, pageSize: number): Promise<Page<any>> {
  const { source } = FLOWS[entity];
  const inWindow = changedSince(window.cursor, window.until);
  const query = { q: (source.filter ? q.and(inWindow, source.filter.q) : inWindow).expression, s: WINDOW_ORDER, pageSize, startPage: (window.cursor.skip ?? 0) + 1 };
  return first(source.window(commerce, orgId, query));
}

/** `remaining`: the service's count of the window's records from where the batch started (progress estimates). */
export type Batch = { records: any[]; rejected: Page<any>['rejected']; pages: number; done: boolean; next: Position; remaining?: number };

/**
 * Pages of the window, one after the other, until `target` records are gathered, the window ends, or
 * reading has taken `budgetMs` (a slow API must not push the activity past its timeouts): a CRM that
 * writes big batches better (Salesforce's Bulk API 2.0) gets them. Each next page starts strictly after
 * the last record read, as the next activity would.
 */
export async function readWindowBatch(
  commerce: CommerceClient,
  orgId: string,
  entity: Entity,
  window: Window,
  pageSize: number,
  target: number,
  options: ReadOptions & { budgetMs?: number } = {},
): Promise<Batch> {
  const started = Date.now();
  const batch: Batch = { records: [], rejected: [], pages: 0, done: false, next: window.cursor };
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await readWindowPage(commerce, orgId, entity, { cursor: batch.next, until: window.until }, pageSize);
    batch.pages += 1;
    if (batch.pages === 1 && typeof page.totalCount === 'number') batch.remaining = page.totalCount;
    batch.records.push(...page.records);
    batch.rejected.push(...page.rejected);
    options.onProgress?.({ entity, phase: 'read', records: batch.records.length, pages: batch.pages });
    batch.done = page.records.length + page.rejected.length < pageSize;
    const last = page.records.at(-1);
    // A full page without one readable record: stand where we are and skip that page next time.
    batch.next = last ? { time: toDate(last.lastUpdateTime)!, afterId: last.id } : { ...batch.next, skip: (batch.next.skip ?? 0) + (batch.done ? 0 : 1) };
    if (batch.done || batch.records.length >= target || Date.now() - started >= (options.budgetMs ?? Infinity)) return batch;
  }
}

export type ByIdRead = { records: any[]; unreadable: { sourceId: string; reason: string }[]; missing: string[]; notOurs: string[] };

/**
 * Records by id, a few requests at a time. A record the service no longer has is `missing`; one whose
 * answer cannot be used (no readable lastUpdateTime, say) is `unreadable` with the reason: neither
 * stops the others.
 */
export async function readRecordsById(commerce: CommerceClient, orgId: string, entity: Entity, ids: string[], options: ReadOptions & { concurrency?: number; byIdContext?: ByIdContext } = {}): Promise<ByIdRead> {
  const limit = pLimit(options.concurrency ?? 8);
  const read: ByIdRead = { records: [], unreadable: [], missing: [], notOurs: [] };
  let finished = 0;
  await Promise.all(
    ids.map((id) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        try {
          const record = await FLOWS[entity].source.byId(commerce, orgId, id, options.byIdContext);
          // A record of the source that is not this flow's (an outbound referral, for the inbound flow) is no business of it.
          if (FLOWS[entity].source.filter?.accepts(record) === false) read.notOurs.push(id);
          else read.records.push(record);
        } catch (error) {
          // A row that reads again as other records (flows/types.ts): its letter closes like one no longer the flow's.
          if (error instanceof ReadsAgainAsOtherRecords) read.notOurs.push(id);
          else if ((error as { status?: number }).status === 404) read.missing.push(id);
          else if (error instanceof CommerceRecordError) read.unreadable.push({ sourceId: id, reason: `the commerce API's ${entity} ${id} cannot be used: ${error.problems.join('; ')}` });
          else throw error;
        }
        finished += 1;
        options.onProgress?.({ entity, phase: 'read by id', read: finished, of: ids.length });
      }),
    ),
  );
  // Concurrency shuffles the order; the write path wants it stable.
  const order = new Map(ids.map((id, index) => [id, index]));
  read.records.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return read;
}
