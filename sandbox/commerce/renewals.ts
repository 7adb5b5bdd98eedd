// Marketplace A renewals in the sandbox (issue #25 section 3; docs/commerce-api-assumptions.md A15): a
// draft renewal offer appears for an entitlement nearing its end and may be repriced; the buyer accepts
// it (the draft becomes an ACCEPTED offer, a new entitlement arrives on it, its agreement pointing back
// along the chain, and the old agreement says RENEWED with the renewal offer's id), or the entitlement
// ends without one (EXPIRED, its draft gone). Drafts are not offers of the offer list until accepted:
// GET {O}/entitlement/{id}/renewal/draftOffer serves them, 404 when there is none.
import { DAY, iso } from './data/common.ts';
import { emitEvent, type SandboxState } from './state.ts';
import { nextId, type Store } from './store.ts';
import type { Entitlement, Offer } from './types.ts';

const drafts = new WeakMap<Store, Map<string, Offer>>();
const draftsOf = (store: Store) => {
  let map = drafts.get(store);
  if (!map) drafts.set(store, (map = new Map()));
  return map;
};

/** How near its end an entitlement must be for the change driver to draft its renewal: when AWS first tells the buyer (A15). */
export const DRAFT_WITHIN_DAYS = 180;

export type RenewalStep = { entitlementId: string; action: 'drafted' | 'repriced' | 'accepted' | 'lapsed'; offerId?: string; renewalEntitlementId?: string };

/** The pending draft renewal offer of an entitlement, if any. */
export function draftOf(store: Store, entitlementId: string): Offer | undefined {
  return draftsOf(store).get(entitlementId);
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const agreementOf = (entitlement: Entitlement) => (entitlement.info.cloudAAgreement ?? {}) as Record<string, unknown>;

/** A marketplace A entitlement still running, ending within the draft window, not renewed yet. */
export function mayRenew(state: SandboxState, entitlement: Entitlement): boolean {
  if (entitlement.partner !== 'cloudA' || entitlement.status !== 'ACTIVE' || !entitlement.endTime) return false;
  if (agreementOf(entitlement).status === 'RENEWED') return false;
  const left = Date.parse(entitlement.endTime) - state.nowMs();
  return left > 0 && left <= DRAFT_WITHIN_DAYS * DAY;
}

/** A draft appears (3 % over the current annual value), or the pending one is repriced (2 % more). */
export function draftRenewal(state: SandboxState, entitlement: Entitlement): RenewalStep {
  const now = state.nowIso();
  const pending = draftOf(state.store, entitlement.id);
  if (pending) {
    pending.info = { ...pending.info, commitAmount: round2(Number(pending.info.commitAmount ?? 0) * 1.02) };
    pending.lastUpdateTime = now;
    return { entitlementId: entitlement.id, action: 'repriced', offerId: pending.id };
  }
  const base = [entitlement.info.annualizedAmount, entitlement.info.commitAmount].map(Number).find((value) => Number.isFinite(value) && value > 0) ?? 12_000;
  const taken = new Set([...draftsOf(state.store).values()].map((offer) => offer.id));
  let id = nextId('offer', state.store.offers);
  for (let n = 1; taken.has(id); n++) id = `${nextId('offer', state.store.offers)}-r${n}`;
  const draft: Offer = {
    id,
    name: `Renewal of ${entitlement.name}`,
    organizationID: entitlement.organizationID,
    buyerID: entitlement.buyerID,
    contactIds: [],
    channelType: 'DIRECT',
    offerType: 'PRIVATE',
    pricingType: 'CONTRACT',
    productID: entitlement.productID,
    productType: 'SAAS',
    partner: entitlement.partner,
    partnerID: entitlement.partnerID,
    service: entitlement.service,
    status: 'PENDING_ACCEPTANCE',
    createdBy: 'marketplace',
    lastUpdatedBy: 'marketplace',
    creationTime: now,
    lastUpdateTime: now,
    endTime: null,
    expireTime: entitlement.endTime,
    info: { commitAmount: round2(base * 1.03), currency: entitlement.info.currency ?? 'USD', privateOfferUrl: `https://marketplace-a.example/offers/${id}`, autoRenew: true },
    metaInfo: { isRenewalOffer: true, baseAgreementId: agreementOf(entitlement).agreementId ?? null },
  };
  draftsOf(state.store).set(entitlement.id, draft);
  return { entitlementId: entitlement.id, action: 'drafted', offerId: id };
}

/**
 * The buyer accepts the draft: it joins the offers as ACCEPTED, a new entitlement arrives on it (from
 * the old end, a year long, its agreement's initialAgreementId the chain's root), the old agreement is
 * RENEWED and names the renewal offer (endTimeBehavior.renewalSummary.offerId). Events for all three.
 */
export function acceptRenewal(state: SandboxState, entitlement: Entitlement): RenewalStep | undefined {
  const draft = draftOf(state.store, entitlement.id);
  if (!draft) return undefined;
  const now = state.nowIso();
  draftsOf(state.store).delete(entitlement.id);
  draft.status = 'ACCEPTED';
  draft.externalStatus = 'accepted';
  draft.lastUpdateTime = now;
  draft.metaInfo = { ...draft.metaInfo, offerAcceptDate: now };
  state.store.offers.add(draft);

  const old = agreementOf(entitlement);
  const root = (old.initialAgreementId ?? old.agreementId ?? entitlement.externalID) as string;
  const start = Date.parse(entitlement.endTime ?? now);
  const renewed: Entitlement = {
    ...entitlement,
    id: nextId('ent', state.store.entitlements),
    externalID: `agmt-${draft.id}`,
    offerID: draft.id,
    name: `${entitlement.name} (renewed)`,
    status: 'ACTIVE',
    externalStatus: 'active',
    creationTime: now,
    startTime: iso(start),
    endTime: iso(start + 365 * DAY),
    lastUpdateTime: now,
    info: {
      ...entitlement.info,
      commitAmount: draft.info.commitAmount,
      annualizedAmount: draft.info.commitAmount,
      cloudAAgreement: { ...old, agreementId: `agmt-${draft.id}`, initialAgreementId: root, offerId: draft.id, status: 'ACTIVE', startTime: iso(start), endTime: iso(start + 365 * DAY), acceptanceTime: now },
    },
    metaInfo: {},
  };
  state.store.entitlements.add(renewed);
  entitlement.info = { ...entitlement.info, cloudAAgreement: { ...old, status: 'RENEWED', endTimeBehavior: { type: 'RENEW', reasonCode: 'RENEWED', renewalSummary: { offerId: draft.id } } } };
  entitlement.lastUpdateTime = now;
  for (const [type, row, action] of [['OFFER', draft, 'UPDATED'], ['ENTITLEMENT', renewed, 'CREATED'], ['ENTITLEMENT', entitlement, 'RENEWED']] as const) {
    emitEvent(state, { action, entityType: type, entityID: row.id, entityName: row.name, entityStatus: row.status, partner: row.partner, timestamp: now, createdBySource: 'SYSTEM' });
  }
  return { entitlementId: entitlement.id, action: 'accepted', offerId: draft.id, renewalEntitlementId: renewed.id };
}

/** The entitlement ends without a renewal: EXPIRED, its draft gone (the offer lapsed with it). */
export function lapseRenewal(state: SandboxState, entitlement: Entitlement): RenewalStep {
  const now = state.nowIso();
  draftsOf(state.store).delete(entitlement.id);
  entitlement.status = 'EXPIRED';
  entitlement.externalStatus = 'expired';
  if (!entitlement.endTime || Date.parse(entitlement.endTime) > state.nowMs()) entitlement.endTime = now;
  entitlement.lastUpdateTime = now;
  emitEvent(state, { action: 'STATUS_CHANGED', entityType: 'ENTITLEMENT', entityID: entitlement.id, entityName: entitlement.name, entityStatus: entitlement.status, partner: entitlement.partner, timestamp: now, createdBySource: 'SYSTEM' });
  return { entitlementId: entitlement.id, action: 'lapsed' };
}
