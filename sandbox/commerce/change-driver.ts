// Makes the data move like a live marketplace: status moves, amounts, renewals, cancellations, new
// offers and referrals. Every change bumps lastUpdateTime to "now" and emits one notification event
// (A8). Runs on a timer (changesPerSecond) and on demand (POST /_sandbox/changes).
import { DAY, iso, offerExternalId, type GenContext } from './data/common.ts';
import { randomDelivery } from './data/events.ts';
import { externalStatusOf, indexParties, makeOffer, makeReferral, type Parties } from './data/offers.ts';
import { emitEvent, type SandboxState } from './state.ts';
import { addTerm, nextId, type Store } from './store.ts';
import type { Entitlement, Offer, Referral } from './types.ts';

export type Change = { entityType: string; id: string; action: string; summary: string; eventID: string; lastUpdateTime: string };

type Kind = 'entitlementStatus' | 'entitlementAmounts' | 'renewal' | 'cancellation' | 'offerStatus' | 'newOffer' | 'newReferral' | 'referralStage';
const KINDS: readonly (readonly [Kind, number])[] = [
  ['entitlementStatus', 18], ['entitlementAmounts', 24], ['renewal', 8], ['cancellation', 7],
  ['offerStatus', 20], ['newOffer', 9], ['newReferral', 6], ['referralStage', 8],
];

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

const partiesCache = new WeakMap<Store, Parties>();
function partiesOf(store: Store): Parties {
  let parties = partiesCache.get(store);
  if (!parties) {
    parties = indexParties(store.products.rows, store.buyers.rows, store.contacts.rows);
    partiesCache.set(store, parties);
  }
  return parties;
}

/** A random row satisfying `accept`, trying a bounded number of random picks. */
function pickWhere<T>(state: SandboxState, rows: readonly T[], accept: (row: T) => boolean): T | undefined {
  for (let attempt = 0; attempt < 40 && rows.length > 0; attempt++) {
    const row = rows[Math.floor(state.random.next() * rows.length)]!;
    if (accept(row)) return row;
  }
  return undefined;
}

export function applyChanges(state: SandboxState, count: number): Change[] {
  const changes: Change[] = [];
  for (let i = 0; i < count; i++) {
    const kind = state.random.weighted(KINDS);
    // When no record suits the chosen kind, a new referral is always possible.
    changes.push(applyOne(state, kind) ?? applyOne(state, 'newReferral')!);
  }
  return changes;
}

function applyOne(state: SandboxState, kind: Kind): Change | undefined {
  const { store } = state;
  const now = state.nowIso();
  switch (kind) {
    case 'entitlementStatus': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status in ENTITLEMENT_MOVES);
      if (!entitlement) return undefined;
      const previous = entitlement.status;
      entitlement.status = ENTITLEMENT_MOVES[previous]!;
      entitlement.externalStatus = entitlement.status.toLowerCase();
      return entitlementChange(state, entitlement, 'STATUS_CHANGED', `${previous} -> ${entitlement.status}`, { previousStatus: previous });
    }
    case 'entitlementAmounts': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE');
      if (!entitlement) return undefined;
      const term = store.entitlementTerms.get(entitlement.entitlementTermID);
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
    case 'renewal': {
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => (e.status === 'ACTIVE' || e.status === 'EXPIRED') && e.endTime !== null);
      if (!entitlement) return undefined;
      const oldEnd = Date.parse(entitlement.endTime!);
      const newEnd = oldEnd + 365 * DAY;
      const current = store.entitlementTerms.get(entitlement.entitlementTermID);
      if (current) {
        const term = {
          ...current,
          id: nextId('term', store.entitlementTerms.rows),
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
      const entitlement = pickWhere(state, store.entitlements.rows, (e) => e.status === 'ACTIVE');
      if (!entitlement) return undefined;
      entitlement.status = 'CANCELLED';
      entitlement.externalStatus = 'cancelled';
      return entitlementChange(state, entitlement, 'STATUS_CHANGED', 'ACTIVE -> CANCELLED', { previousStatus: 'ACTIVE' });
    }
    case 'offerStatus': {
      const offer = pickWhere(state, store.offers.rows, (o) => o.status in OFFER_MOVES);
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
      const offer = makeOffer(driverContext(state), store.offers.rows.length + 1, partiesOf(store), { offerType: 'PRIVATE', status: 'PENDING_ACCEPTANCE', atMs: state.nowMs(), oversized: false });
      store.offers.add(offer);
      if (offer.externalID) store.offersByExternalId.set(offer.externalID, offer);
      return offerChange(state, offer, 'CREATED', 'new private offer');
    }
    case 'newReferral': {
      const referral = makeReferral(driverContext(state), store.referrals.rows.length + 1, partiesOf(store), store.offers.rows, { atMs: state.nowMs() });
      store.referrals.add(referral);
      return referralChange(state, referral, 'CREATED', 'new referral');
    }
    case 'referralStage': {
      const referral = pickWhere(state, store.referrals.rows, (r) => r.status !== 'CLOSED' && r.status !== 'REJECTED' && STAGE_ORDER.indexOf(r.stage) >= 0 && r.stage !== 'Launched');
      if (!referral) return undefined;
      const previous = referral.stage;
      referral.stage = STAGE_ORDER[STAGE_ORDER.indexOf(previous) + 1]!;
      referral.status = referral.stage === 'Launched' ? 'CLOSED' : referral.status === 'DRAFT' ? 'SUBMITTED' : referral.status;
      return referralChange(state, referral, 'UPDATED', `stage ${previous} -> ${referral.stage}`, { previousStage: previous });
    }
  }
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
  return record(state, 'REFERRAL', referral.id, referral.name, referral.status, referral.partner, [], referral.lastUpdateTime, action, summary, info);
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
    const rate = state.settings.changesPerSecond;
    if (!(rate > 0)) {
      owed = 0;
      return;
    }
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
