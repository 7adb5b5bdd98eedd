// Live agreements (issue #25 section 3): a buyer with a live marketplace agreement has its account
// marked (Salesforce Has_Live_Marketplace_Agreement__c, HubSpot has_live_marketplace_agreement, Dynamics
// ccs_haslivemarketplaceagreement), so a seller sees it before quoting. The mark is the buyer's, made
// from all its entitlements, and it changes when one of them changes or ends (an end passing is no
// change of the record), so this flow reads what is due (`due`): on its first run every entitlement,
// then the buyers of the entitlements changed, or ended, since its last run, each with all its
// entitlements. Its records are buyers (mappings/canonical/live-agreement.ts).
import { q, sort, toDate, type CommerceClient } from '../commerce/index.ts';
import type { Entitlement } from '../commerce/models.ts';
import type { BuyerAgreements } from '../mappings/canonical/live-agreement.ts';
import { liveAgreementToDynamicsAccount } from '../mappings/dynamics/live-agreement.ts';
import { liveAgreementToHubSpotCompany } from '../mappings/hubspot/live-agreement.ts';
import { liveAgreementToAccount } from '../mappings/salesforce/live-agreement.ts';
import type { DueRead } from './renewal.ts';
import type { CommerceToCrmFlow } from './types.ts';

/** Buyers asked for in one query (an `in` list). */
const BUYERS_PER_QUERY = 50;

async function entitlementsWhere(commerce: CommerceClient, orgId: string, filter: string | undefined, pageSize: number, signal?: AbortSignal): Promise<DueRead> {
  const read: DueRead = { records: [], rejected: [] };
  for await (const page of commerce.entitlements.query(orgId, { q: filter, s: sort({ field: 'lastUpdateTime' }, { field: 'id' }), pageSize })) {
    signal?.throwIfAborted();
    read.records.push(...page.records);
    read.rejected.push(...page.rejected);
  }
  return read;
}

/** One record per buyer: its entitlements, the newest change among them, and the instant liveness is judged at. */
function byBuyer(entitlements: Entitlement[], asOf: string): BuyerAgreements[] {
  const buyers = new Map<string, BuyerAgreements>();
  for (const entitlement of entitlements) {
    if (!entitlement.buyerID) continue;
    const buyer = buyers.get(entitlement.buyerID) ?? { id: entitlement.buyerID, lastUpdateTime: new Date(0).toISOString(), entitlements: [], asOf };
    buyer.entitlements.push({ id: entitlement.id, status: entitlement.status, endTime: entitlement.endTime, info: entitlement.info && { cloudAAgreement: entitlement.info.cloudAAgreement } });
    const stamp = toDate(entitlement.lastUpdateTime);
    if (stamp && stamp.getTime() > Date.parse(buyer.lastUpdateTime)) buyer.lastUpdateTime = stamp.toISOString();
    buyers.set(entitlement.buyerID, buyer);
  }
  return [...buyers.values()];
}

/** The buyers whose mark may have changed since `since` (all of them on the first run), each with all its entitlements. */
export async function buyersToMark(
  commerce: CommerceClient,
  orgId: string,
  context: { now: Date; since?: Date; pageSize: number; signal?: AbortSignal },
): Promise<DueRead> {
  const asOf = context.now.toISOString();
  if (!context.since) {
    const all = await entitlementsWhere(commerce, orgId, undefined, context.pageSize, context.signal);
    return { records: byBuyer(all.records, asOf), rejected: all.rejected };
  }
  const changed = q.or(q.ge('lastUpdateTime', context.since), q.and(q.ge('endTime', context.since), q.le('endTime', context.now)));
  const touched = await entitlementsWhere(commerce, orgId, changed.expression, context.pageSize, context.signal);
  const buyerIds = [...new Set(touched.records.map((entitlement: Entitlement) => entitlement.buyerID).filter((id): id is string => Boolean(id)))];
  const read: DueRead = { records: [], rejected: touched.rejected };
  const entitlements: Entitlement[] = [];
  for (let start = 0; start < buyerIds.length; start += BUYERS_PER_QUERY) {
    const some = await entitlementsWhere(commerce, orgId, q.in('buyerID', buyerIds.slice(start, start + BUYERS_PER_QUERY)).expression, context.pageSize, context.signal);
    entitlements.push(...some.records);
    read.rejected.push(...some.rejected);
  }
  read.records = byBuyer(entitlements, asOf);
  return read;
}

export const liveAgreementFlow = {
  name: 'live-agreement',
  direction: 'commerce-to-crm',
  source: {
    // Read by `due`; a buyer read by id (a dead-letter retry) is its entitlements, gathered again.
    window: (c, org, query) => c.entitlements.query(org, query),
    byId: async (c, org, buyerId) => {
      const { records } = await entitlementsWhere(c, org, q.eq('buyerID', buyerId).expression, 1000);
      const [buyer] = byBuyer(records, new Date().toISOString());
      return buyer ?? { id: buyerId, lastUpdateTime: new Date(0).toISOString(), entitlements: [], asOf: new Date().toISOString() };
    },
  },
  events: [],
  parents: ['buyer', 'entitlement'],
  due: (commerce, orgId, context) => buyersToMark(commerce, orgId, context),
  mappings: { salesforce: liveAgreementToAccount, hubspot: liveAgreementToHubSpotCompany, dynamics: liveAgreementToDynamicsAccount },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer' | 'entitlement' | 'live-agreement'>;
