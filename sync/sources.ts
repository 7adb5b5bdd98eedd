// How each entity is read from the commerce side: one page of the (lastUpdateTime, id) window, oldest
// first, plus what its mapping needs besides the record (an entitlement's terms).
import pLimit from 'p-limit';
import { changedSince, sort, toDate, type CommerceClient, type Page } from '../commerce/index.ts';
import type { Entitlement, EntitlementTerm } from '../commerce/models.ts';
import type { Entity } from '../mappings/types.ts';

export type Window = { cursor: { time: Date; afterId?: string }; until: Date };

const WINDOW_ORDER = sort({ field: 'lastUpdateTime' }, { field: 'id' });

async function first<T>(pages: AsyncGenerator<Page<T>>): Promise<Page<T>> {
  const next = await pages.next();
  await pages.return(undefined);
  return next.done ? { records: [], rejected: [], position: 1 } : next.value;
}

/** Always the first page of what remains of the window: the cursor moves, the page number does not. */
export function readWindowPage(commerce: CommerceClient, orgId: string, entity: Entity, window: Window, pageSize: number): Promise<Page<any>> {
  const query = { q: changedSince(window.cursor, window.until).expression, s: WINDOW_ORDER, pageSize };
  switch (entity) {
    case 'buyer':
      return first(commerce.buyers.query(orgId, query));
    case 'contact':
      return first(commerce.contacts.query(orgId, query));
    case 'offer':
      return first(commerce.offers.query(orgId, query));
    case 'entitlement':
      return first(commerce.entitlements.query(orgId, query));
    case 'referral':
      return first(commerce.referrals.list(orgId, { limit: pageSize, q: query.q, s: query.s }));
  }
}

export type Batch = { records: any[]; rejected: Page<any>['rejected']; pages: number; done: boolean };

/**
 * Pages of the window, one after the other, until `target` records are gathered or the window ends:
 * a CRM that writes big batches better (Salesforce's Bulk API 2.0) gets them. Each next page starts
 * strictly after the last record read, as the next activity would.
 */
export async function readWindowBatch(commerce: CommerceClient, orgId: string, entity: Entity, window: Window, pageSize: number, target: number, onPage?: (records: number) => void): Promise<Batch> {
  const batch: Batch = { records: [], rejected: [], pages: 0, done: false };
  let cursor = window.cursor;
  for (;;) {
    const page = await readWindowPage(commerce, orgId, entity, { cursor, until: window.until }, pageSize);
    batch.pages += 1;
    batch.records.push(...page.records);
    batch.rejected.push(...page.rejected);
    onPage?.(batch.records.length);
    batch.done = page.records.length + page.rejected.length < pageSize;
    const last = page.records.at(-1);
    // A full page without one readable record ends the batch: the next activity meets it alone.
    if (batch.done || !last || batch.records.length >= target) return batch;
    cursor = { time: toDate(last.lastUpdateTime)!, afterId: last.id };
  }
}

export async function readById(commerce: CommerceClient, orgId: string, entity: Entity, id: string): Promise<any> {
  switch (entity) {
    case 'buyer':
      return commerce.buyers.get(orgId, id);
    case 'contact':
      return commerce.contacts.get(orgId, id);
    case 'offer':
      return commerce.offers.get(orgId, id);
    case 'entitlement':
      return commerce.entitlements.get(orgId, id);
    case 'referral':
      return commerce.referrals.get(orgId, id);
  }
}

/** Terms of each entitlement of a page, a few requests at a time. */
export async function readEntitlementTerms(commerce: CommerceClient, orgId: string, entitlements: Entitlement[], concurrency = 8): Promise<Map<string, EntitlementTerm[]>> {
  const limit = pLimit(concurrency);
  const entries = await Promise.all(
    entitlements.map((entitlement) =>
      limit(async () => {
        const terms: EntitlementTerm[] = [];
        for await (const page of commerce.entitlements.terms(orgId, entitlement.id)) terms.push(...page.records);
        return [entitlement.id, terms] as const;
      }),
    ),
  );
  return new Map(entries);
}
