// How each entity is read from the commerce side: one page of the (lastUpdateTime, id) window, oldest
// first, plus what its mapping needs besides the record (an entitlement's terms).
import pLimit from 'p-limit';
import { changedSince, sort, type CommerceClient, type Page } from '../commerce/index.ts';
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
