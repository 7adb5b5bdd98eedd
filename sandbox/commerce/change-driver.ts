// Makes the data move like a live marketplace: status moves, amounts, renewals, cancellations, new
// offers and referrals, and the cloud partner's side of co-sell (stage moves of accepted referrals,
// inbound referrals). Every change bumps lastUpdateTime to "now" and emits one notification event
// (A8), except a term changed alone (termsBumpEntitlement false: the term's own lastUpdateTime moves,
// nothing else, as A12 allows). Runs on a timer (changesPerSecond) and on demand (POST /_sandbox/changes).
import { DAY, iso, offerExternalId, type GenContext } from './data/common.ts';
import { randomDelivery } from './data/events.ts';
import { externalStatusOf, indexParties, makeOffer, makeReferral, type Parties } from './data/offers.ts';
import { settleReviews } from './partner-review.ts';
import { emitEvent, type SandboxState } from './state.ts';
import { addTerm, nextId, nextNumber, type Store } from './store.ts';
import type { Entitlement, EntitlementTerm, Offer, Referral } from './types.ts';
import { addUsageToADay, advanceUsageDays, failAUsageReport } from './usage.ts';
import { acceptRenewal, draftOf, draftRenewal, lapseRenewal, mayRenew, type RenewalStep } from './renewals.ts';
import { changeProduct } from './product-changes.ts';
import { HELD_DRAFT } from './offer-terms.ts';

/** What one change did; a term changed alone has no event (eventID null) and names its entitlement. */
export type Change = { entityType: string; id: string; action: string; summary: string; eventID: string | null; lastUpdateTime: string; entitlementID?: string };

export const CHANGE_KINDS = ['entitlementStatus', 'termUsage', 'renewal', 'cancellation', 'offerStatus', 'newOffer', 'newReferral', 'referralStage', 'termCommit', 'buyerDeleted', 'partnerStageMove', 'inboundReferral', 'usage', 'renewalDraft', 'renewalAccepted', 'renewalLapsed', 'usageReportFailed', 'product'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The mix of the timer and of POST /_sandbox/changes without kinds (order and weights are part of what a seed gives). */
const MIX: readonly (readonly [ChangeKind, number])[] = [
  ['entitlementStatus', 18], ['termUsage', 24], ['renewal', 8], ['cancellation', 7],
  ['offerStatus', 20], ['newOffer', 9], ['newReferral', 6], ['referralStage', 8],
];
/** Weights when kinds are asked for; the kinds outside MIX happen only then. */
const WEIGHTS: Record<ChangeKind, number> = { ...(Object.fromEntries(MIX) as Record<ChangeKind, number>), termCommit: 10, buyerDeleted: 5, partnerStageMove: 8, inboundReferral: 6, usage: 6, renewalDraft: 6, renewalAccepted: 4, renewalLapsed: 2, usageReportFailed: 3, product: 4 };

const ENTITLEMENT_MOVES: Record<string, string> = { PENDING: 'ACTIVE', SUSPENDED: 'ACTIVE', ACTIVE: 'SUSPENDED' };
const OFFER_MOVES: Record<string, readonly string[]> = {
  PENDING_CREATE: ['PENDING_ACCEPTANCE'],
  PENDING_ACCEPTANCE: ['ACCEPTED', 'ACCEPTED', 'EXPIRED'],
  PENDING_CANCEL: ['EXPIRED'],
  ACCEPTED: ['ACTIVE'],
  ACTIVE: ['USED'],
  UPDATE_FAILED: ['PENDING_ACCEPTANCE'],
};
const STAGE_ORDER = ['Prospect', 'Qualified', 'Technical Validation', 'Business Validation', 'Committed', 'Launched'];
/** Share of partner stage moves that lose the deal instead of moving it on. */
const CLOSED_LOST_SHARE = 0.15;

const partiesCache = new WeakMap<Store, Parties>();
function partiesOf(store: Store): Parties {
  let parties = partiesCache.get(store);
  if (!parties) {
    // New offers and referrals never name an injected poison row.
    const clean = <T extends object>(rows: readonly T[]) => rows.filter((row) => !store.injected.has(row));
    // Nor a retired (DELETED) product (A18): the seed's new records name the eight it always named.
    parties = indexParties(clean(store.products.rows).filter((p) => p.status !== 'DELETED'), clean(store.buyers.rows), clean(store.contacts.rows));
    partiesCache.set(store, parties);
  }
  return parties;
}

/** After buyers or contacts were injected: the parties of new records are indexed again without them. */
export function forgetParties(store: Store): void {
  partiesCache.delete(store);
}

/**
 * A random row satisfying `accept`, trying a bounded number of random picks; `thorough` (kinds asked
 * for by name) then takes the first suitable row, so a rare case is still found. Injected poison rows
 * are never picked.
 */
function pickWhere<T extends object>(state: SandboxState, rows: readonly T[], accept: (row: T) => boolean, thorough = false): T | undefined {
  const usable = (row: T) => !state.store.injected.has(row) && accept(row);
  for (let attempt = 0; attempt < 40 && rows.length > 0; attempt++) {
    const row = rows[Math.floor(state.random.next() * rows.length)]!;
    if (usable(row)) return row;
  }
  return thorough ? rows.find(usable) : undefined;
}

/**
 * `count` changes now. Without `kinds`, drawn from the mix (a kind no record suits becomes a new
 * referral). With `kinds`, drawn from those only; a kind no record suits any more is dropped, so fewer
 * than `count` come back when none of them can happen (every buyer already DELETED).
 */
export function applyChanges(state: SandboxState, count: number, kinds?: readonly ChangeKind[]): Change[] {
  const changes: Change[] = [];
  if (!kinds) {
    for (let i = 0; i < count; i++) {
      const kind = state.random.weighted(MIX);
      changes.push(applyOne(state, kind) ?? applyOne(state, 'newReferral')!);
    }
    return changes;
  }
  let open = [...new Set(kinds)];
  while (changes.length < count && open.length > 0) {
    const kind = open.length === 1 ? open[0]! : state.random.weighted(open.map((k) => [k, WEIGHTS[k]] as const));
    const change = applyOne(state, kind, true);
    if (change) changes.push(change);
    else open = open.filter((k) => k !== kind);
  }
  return changes;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The current term of an entitlement, when it has one the driver may change. */
function currentTerm(state: SandboxState, entitlement: Entitlement): EntitlementTerm | undefined {
  const term = state.store.entitlementTerms.get(entitlement.entitlementTermID);
  return term && !state.store.injected.has(term) ? term : undefined;
}

function applyOne(state: SandboxState, kind: ChangeKind, thorough = false): Change | undefined {
  const { store } = state;
  const now = state.nowIso();
  const bump = state.settings.termsBumpEntitlement;
  switch (kind) {
    case 'entitlementStatus': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status in ENTITLEMENT_MOVES, thorough);
      if (!entitlement) return undefined;
      const previous = entitlement.status;
      entitlement.status = ENTITLEMENT_MOVES[previous]!;
      entitlement.externalStatus = entitlement.status.toLowerCase();
      return entitlementChange(state, entitlement, 'STATUS_CHANGED', `${previous} -> ${entitlement.status}`, { previousStatus: previous });
    }
    case 'termUsage': {
      if (!bump) {
        const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE' && currentTerm(state, e) !== undefined, thorough);
        if (!entitlement) return undefined;
        const term = currentTerm(state, entitlement)!;
        const amount = state.random.amount(10, 2_000);
        term.usedCommitAmount = Math.min(term.commitAmount, round2(term.usedCommitAmount + amount));
        term.reportedAmount = round2(term.reportedAmount + amount);
        return termAloneChange(state, term, `usage of ${amount} reported on the term alone`);
      }
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE', thorough);
      if (!entitlement) return undefined;
      const term = currentTerm(state, entitlement);
      const amount = state.random.amount(10, 2_000);
      if (term) {
        term.usedCommitAmount = Math.min(term.commitAmount, Math.round((term.usedCommitAmount + amount) * 100) / 100);
        term.reportedAmount = Math.round((term.reportedAmount + amount) * 100) / 100;
        term.lastUpdateTime = now;
      }
      const invoiced = (entitlement.info.invoicedAmount as number | undefined) ?? 0;
      entitlement.info = { ...entitlement.info, invoicedAmount: Math.round((invoiced + amount) * 100) / 100, grossAmount: Math.round((((entitlement.info.grossAmount as number | undefined) ?? 0) + amount) * 100) / 100 };
      return entitlementChange(state, entitlement, 'UPDATED', `usage of ${amount} reported`, { reportedAmount: amount });
    }
    case 'usage': {
      // One more usage record group on a day already reported (A16): that day's aggregates change, no event.
      const day = addUsageToADay(state);
      return day && { entityType: 'USAGE', id: day.id, action: 'UPDATED', summary: day.summary, eventID: null, lastUpdateTime: day.lastUpdateTime };
    }
    case 'usageReportFailed': {
      // A usage record group the marketplace refused (REPORT_FAILED): an action item on its entitlement.
      const group = failAUsageReport(state);
      const entitlement = group && store.entitlements.get(group.entitlementID);
      if (!group || !entitlement) return undefined;
      return entitlementChange(state, entitlement, 'UPDATED', `usage report failed: ${group.dimensionKey} on ${group.usageDate} (group ${group.id})`, { usageReportFailed: { usageRecordGroupID: group.id, dimensionKey: group.dimensionKey, usageDate: group.usageDate } });
    }
    // Marketplace A renewals (sandbox/commerce/renewals.ts, A15): a draft appears or is repriced, is accepted, or the entitlement ends without one.
    case 'renewalDraft': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => mayRenew(state, e), thorough);
      return entitlement && renewalChange(state, draftRenewal(state, entitlement));
    }
    case 'renewalAccepted': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => mayRenew(state, e) && draftOf(store, e.id) !== undefined, thorough);
      const step = entitlement && acceptRenewal(state, entitlement);
      return step && renewalChange(state, step);
    }
    case 'renewalLapsed': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => mayRenew(state, e), thorough);
      return entitlement && renewalChange(state, lapseRenewal(state, entitlement));
    }
    case 'termCommit': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE' && currentTerm(state, e) !== undefined, thorough);
      if (!entitlement) return undefined;
      const term = currentTerm(state, entitlement)!;
      const previous = term.commitAmount;
      term.commitAmount = round2(previous + state.random.amount(100, 5_000)); // the buyer commits to more
      term.lastUpdateTime = now;
      const summary = `commit of term ${term.id} ${previous} -> ${term.commitAmount}`;
      if (!bump) return termAloneChange(state, term, summary);
      return entitlementChange(state, entitlement, 'UPDATED', summary, { commitAmount: term.commitAmount });
    }
    case 'buyerDeleted': {
      const buyer = pickWhere(state, store.buyers.rows, (b) => b.status === 'ACTIVE', thorough);
      if (!buyer) return undefined;
      // A soft delete (A6): the buyer stays, DELETED; its contacts, offers and entitlements are untouched.
      buyer.status = 'DELETED';
      buyer.lastUpdateTime = now;
      return record(state, 'BUYER', buyer.id, buyer.name, buyer.status, buyer.partner, [], now, 'DELETED', 'ACTIVE -> DELETED', { previousStatus: 'ACTIVE' });
    }
    case 'renewal': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => (e.status === 'ACTIVE' || e.status === 'EXPIRED') && e.endTime !== null, thorough);
      if (!entitlement) return undefined;
      const oldEnd = Date.parse(entitlement.endTime!);
      const newEnd = oldEnd + 365 * DAY;
      const current = currentTerm(state, entitlement);
      if (current) {
        const term = {
          ...current,
          id: nextId('term', store.entitlementTerms),
          usedCommitAmount: 0,
          usedCreditAmount: 0,
          reportedAmount: 0,
          creationTime: now,
          startTime: iso(oldEnd),
          endTime: iso(newEnd),
          lastUpdateTime: now,
          info: { type: current.info.type, isCommitDivided: false },
        };
        addTerm(store, term);
        entitlement.entitlementTermID = term.id;
      }
      const previous = entitlement.status;
      entitlement.status = 'ACTIVE';
      entitlement.endTime = iso(newEnd);
      return entitlementChange(state, entitlement, 'RENEWED', `renewed until ${entitlement.endTime}`, { previousStatus: previous, endTime: entitlement.endTime });
    }
    case 'cancellation': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE', thorough);
      if (!entitlement) return undefined;
      entitlement.status = 'CANCELLED';
      entitlement.externalStatus = 'cancelled';
      return entitlementChange(state, entitlement, 'STATUS_CHANGED', 'ACTIVE -> CANCELLED', { previousStatus: 'ACTIVE' });
    }
    case 'offerStatus': {
      // A draft held for publishing (subStatus DRAFT, A19) is not on the marketplace: nothing moves it until it is published.
      const offer = pickWhere(state, store.offers.rows, (o) => o.status in OFFER_MOVES && o.subStatus !== HELD_DRAFT, thorough);
      if (!offer) return undefined;
      const previous = offer.status;
      offer.status = state.random.pick(OFFER_MOVES[previous]!);
      if (!offer.externalID) {
        // "Created on the marketplace": the offer gets its marketplace id now.
        offer.externalID = offerExternalId(driverContext(state), offer.partner);
        store.offersByExternalId.set(offer.externalID, offer);
        offer.metaInfo = { ...offer.metaInfo, offerCreationSuccessDate: now };
      }
      offer.externalStatus = externalStatusOf(offer.status);
      if (offer.status === 'ACCEPTED') offer.metaInfo = { ...offer.metaInfo, offerAcceptDate: now };
      return offerChange(state, offer, 'STATUS_CHANGED', `${previous} -> ${offer.status}`, { previousStatus: previous });
    }
    case 'newOffer': {
      const offer = makeOffer(driverContext(state), nextNumber('offer', store.offers), partiesOf(store), { offerType: 'PRIVATE', status: 'PENDING_ACCEPTANCE', atMs: state.nowMs(), oversized: false });
      store.offers.add(offer);
      if (offer.externalID) store.offersByExternalId.set(offer.externalID, offer);
      return offerChange(state, offer, 'CREATED', 'new private offer');
    }
    case 'newReferral': {
      const referral = makeReferral(driverContext(state), nextNumber('ref', store.referrals), partiesOf(store), store.offers.rows, { atMs: state.nowMs() });
      store.referrals.add(referral);
      return referralChange(state, referral, 'CREATED', 'new referral');
    }
    case 'referralStage': {
      const referral = pickWhere(state, store.referrals.rows, (r) => r.status !== 'CLOSED' && r.status !== 'REJECTED' && STAGE_ORDER.indexOf(r.stage) >= 0 && r.stage !== 'Launched', thorough);
      if (!referral) return undefined;
      const previous = referral.stage;
      referral.stage = STAGE_ORDER[STAGE_ORDER.indexOf(previous) + 1]!;
      referral.status = referral.stage === 'Launched' ? 'CLOSED' : referral.status === 'DRAFT' ? 'SUBMITTED' : referral.status;
      return referralChange(state, referral, 'UPDATED', `stage ${previous} -> ${referral.stage}`, { previousStage: previous });
    }
    case 'partnerStageMove': {
      // The partner works an accepted referral: one stage on, or lost; Launched (won) and Closed Lost close it.
      const referral = pickWhere(state, store.referrals.rows, (r) => r.status === 'ACCEPTED' && STAGE_ORDER.indexOf(r.stage) >= 0 && r.stage !== 'Launched', thorough);
      if (!referral) return undefined;
      const previous = referral.stage;
      referral.stage = state.random.chance(CLOSED_LOST_SHARE) ? 'Closed Lost' : STAGE_ORDER[STAGE_ORDER.indexOf(previous) + 1]!;
      if (referral.stage === 'Launched' || referral.stage === 'Closed Lost') referral.status = 'CLOSED';
      const action = referral.status === 'ACCEPTED' ? 'UPDATED' : 'STATUS_CHANGED';
      return referralChange(state, referral, action, `partner moved stage ${previous} -> ${referral.stage}`, { previousStage: previous, previousStatus: 'ACCEPTED', changedBy: 'PARTNER' });
    }
    case 'product': {
      // The seller reprices a dimension of a listed product, or now and then adds one (A18).
      const product = pickWhere(state, store.products.rows, (p) => p.status === 'PUBLIC' && Array.isArray(p.info?.dimensions), thorough);
      if (!product) return undefined;
      const change = changeProduct(state, product);
      return record(state, 'PRODUCT', product.id, product.name, product.status, product.partner, [], product.lastUpdateTime, 'UPDATED', change.summary, change.info);
    }
    case 'inboundReferral': {
      const referral = inboundReferral(state, thorough);
      return referral && referralChange(state, referral, 'CREATED', `inbound referral from ${referral.partner}`, { changedBy: 'PARTNER' });
    }
  }
}

/**
 * A referral a cloud partner sends the seller (A6): INBOUND, SUBMITTED to the seller, on an ACTIVE buyer
 * of that partner's marketplace, naming one or two of the buyer's contacts and no CRM id yet.
 */
function inboundReferral(state: SandboxState, thorough: boolean): Referral | undefined {
  const { store, random } = state;
  const parties = partiesOf(store);
  const contactsOf = (buyerId: string) => (parties.contactsByBuyer.get(buyerId) ?? []).filter((c) => !store.injected.has(c));
  const buyer = pickWhere(state, store.buyers.rows, (b) => b.status === 'ACTIVE' && contactsOf(b.id).length > 0, thorough);
  if (!buyer) return undefined;
  const contacts = contactsOf(buyer.id);
  const first = random.int(0, contacts.length - 1);
  const named = contacts.length > 1 && random.chance(0.5) ? [contacts[first]!, contacts[(first + 1) % contacts.length]!] : [contacts[first]!];
  const products = parties.products.filter((p) => p.partner === buyer.partner);
  const product = products.length > 0 ? random.pick(products) : undefined;
  const now = state.nowIso();
  const referral: Referral = {
    id: nextId('ref', store.referrals),
    organizationID: state.settings.organizationId,
    name: `${buyer.name} - ${product?.name ?? 'co-sell'} (inbound)`,
    partner: buyer.partner,
    direction: 'INBOUND',
    status: 'SUBMITTED',
    stage: 'Prospect',
    buyerID: buyer.id,
    dealValue: random.amount(5_000, 500_000),
    currency: 'USD',
    expectedCloseDate: iso(state.nowMs() + random.int(30, 180) * DAY).slice(0, 10),
    description: `Inbound co-sell referral from ${buyer.partner}${product ? ` for ${product.name}` : ''}`,
    contactIds: named.map((c) => c.id),
    creationTime: now,
    lastUpdateTime: now,
  };
  store.referrals.add(referral);
  return referral;
}

/** Generator context for new records: the driver's PRNG, "now", and external ids unique among offers. */
function driverContext(state: SandboxState): GenContext {
  const taken = state.store.offersByExternalId;
  return {
    random: state.random,
    organizationId: state.settings.organizationId,
    baseMs: state.nowMs(),
    externalIds: { has: (id: string) => taken.has(id), add: () => undefined },
  };
}

/** A term changed alone (A12 with termsBumpEntitlement false): its own lastUpdateTime, no event, one journal line. */
function termAloneChange(state: SandboxState, term: EntitlementTerm, summary: string): Change {
  term.lastUpdateTime = state.nowIso();
  state.journal?.rowsOnly([['entitlementTerms', term]]);
  return { entityType: 'ENTITLEMENT_TERM', id: term.id, action: 'UPDATED', summary, eventID: null, lastUpdateTime: term.lastUpdateTime, entitlementID: term.entitlementID };
}

function renewalChange(state: SandboxState, step: RenewalStep): Change {
  return { entityType: 'ENTITLEMENT', id: step.entitlementId, action: `RENEWAL_${step.action.toUpperCase()}`, summary: `renewal ${step.action}${step.offerId ? ` (offer ${step.offerId})` : ''}${step.renewalEntitlementId ? ` -> ${step.renewalEntitlementId}` : ''}`, eventID: null, lastUpdateTime: state.nowIso(), entitlementID: step.entitlementId };
}

function entitlementChange(state: SandboxState, entitlement: Entitlement, action: string, summary: string, info?: Record<string, unknown>): Change {
  entitlement.lastUpdateTime = state.nowIso();
  return record(state, 'ENTITLEMENT', entitlement.id, entitlement.name, entitlement.status, entitlement.partner, [], entitlement.lastUpdateTime, action, summary, info);
}

function offerChange(state: SandboxState, offer: Offer, action: string, summary: string, info?: Record<string, unknown>): Change {
  offer.lastUpdateTime = state.nowIso();
  offer.lastUpdatedBy = 'change-driver';
  return record(state, 'OFFER', offer.id, offer.name, offer.status, offer.partner, offer.contactIds, offer.lastUpdateTime, action, summary, info);
}

function referralChange(state: SandboxState, referral: Referral, action: string, summary: string, info?: Record<string, unknown>): Change {
  referral.lastUpdateTime = state.nowIso();
  // A review (A13) is of a SUBMITTED referral: once the partner moved it elsewhere none is running.
  if (referral.status !== 'SUBMITTED') delete referral.partnerReviewEndTime;
  return record(state, 'REFERRAL', referral.id, referral.name, referral.status, referral.partner, referral.contactIds ?? [], referral.lastUpdateTime, action, summary, info);
}

function record(state: SandboxState, entityType: string, id: string, name: string, status: string, partner: string, contactIds: readonly string[], timestamp: string, action: string, summary: string, info?: Record<string, unknown>): Change {
  const event = emitEvent(
    state,
    { action, entityType, entityID: id, entityName: name, entityStatus: status, partner, contactIds, timestamp, info, createdBySource: 'SYSTEM' },
    randomDelivery(state.random, contactIds, timestamp),
  );
  return { entityType, id, action, summary, eventID: event.eventID, lastUpdateTime: timestamp };
}

/** The timer of changesPerSecond: ticks ten times a second and carries fractions over. */
/** Applies changes at the rate in the settings, read at every tick so POST /_sandbox/changes/rate can change it. */
export function startChangeTimer(state: SandboxState): () => void {
  let owed = 0;
  const timer = setInterval(() => {
    settleReviews(state); // the partner answers when a review ends, whether or not the driver runs
    const rate = state.settings.changesPerSecond;
    if (!(rate > 0)) {
      owed = 0;
      return;
    }
    advanceUsageDays(state); // a new day's usage, once the day turns (A16)
    owed += rate / 10;
    const due = Math.floor(owed);
    if (due > 0) {
      owed -= due;
      applyChanges(state, due);
    }
  }, 100);
  timer.unref();
  return () => clearInterval(timer);
}
