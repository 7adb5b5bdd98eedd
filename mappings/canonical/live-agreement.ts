// Whether a buyer has a live marketplace agreement (issue #25 section 3), as every CRM shows it on the
// buyer's account, so a seller sees it before quoting. Computed once from the buyer's entitlements
// (flows/live-agreement.ts gathers them); each CRM's table names its own field.
import { toDate } from '../../commerce/index.ts';
import type { Entitlement } from '../../commerce/models.ts';
import { computing, type CanonicalRecord } from './record.ts';

/** A buyer's entitlements as the flow gathers them, and the instant liveness is judged at. */
export type BuyerAgreements = {
  /** The buyer's id. */
  id: string;
  /** The newest lastUpdateTime among the entitlements (the record's version). */
  lastUpdateTime: string;
  entitlements: Pick<Entitlement, 'id' | 'status' | 'endTime' | 'info'>[];
  asOf: string;
};

export type CanonicalLiveAgreement = {
  buyerId: string;
  /** True while one of the buyer's entitlements is live: ACTIVE, not past its end, its agreement (marketplace A) not ended. */
  live: boolean;
  /** The live entitlements' ids, for the record's description in the CRM. */
  liveEntitlementIds: string[];
};

/**
 * Agreement statuses of marketplace A after which an agreement no longer runs (A15). RENEWED is not one:
 * a renewed agreement runs to its end, and its successor takes over then.
 */
const ENDED_AGREEMENTS = new Set(['EXPIRED', 'CANCELLED', 'TERMINATED', 'REPLACED', 'SUPERSEDED', 'ARCHIVED', 'ROLLED_BACK']);

/** Whether one entitlement is live at `asOf`. */
export function isLive(entitlement: BuyerAgreements['entitlements'][number], asOf: string): boolean {
  if (entitlement.status !== 'ACTIVE') return false;
  const end = toDate(entitlement.endTime ?? undefined);
  if (end && end.getTime() <= Date.parse(asOf)) return false;
  const agreement = entitlement.info?.cloudAAgreement?.status;
  return !(typeof agreement === 'string' && ENDED_AGREEMENTS.has(agreement.toUpperCase()));
}

export const LIVE_AGREEMENT: CanonicalRecord<BuyerAgreements, unknown, CanonicalLiveAgreement> = {
  entity: 'live-agreement',
  id: (record) => record.buyerId,
  describe: {
    buyerId: 'the buyer id',
    live: "true while one of the buyer's entitlements is ACTIVE, not past its endTime, and (marketplace A) its agreement has not ended",
    liveEntitlementIds: "the ids of the buyer's live entitlements",
  },
  compute(buyer) {
    if (!buyer.id) return { ok: false, reason: 'the buyer has no id' };
    return computing(`live agreement of buyer ${buyer.id}`, () => {
      const liveEntitlementIds = buyer.entitlements.filter((entitlement) => isLive(entitlement, buyer.asOf)).map((entitlement) => entitlement.id).sort();
      return { buyerId: buyer.id, live: liveEntitlementIds.length > 0, liveEntitlementIds };
    });
  },
};
