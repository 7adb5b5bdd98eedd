// The renewal of an entitlement as every CRM shows it (issue #25 section 3): one opportunity (deal) per
// entitlement nearing its end, keyed by a key made from the entitlement id, so it is made once whoever
// writes it and however often. Computed once from the entitlement, its pending draft renewal offer and
// the entitlement that renewed it (flows/renewal.ts reads both); each CRM's field table says which of its
// fields takes which value and how its stage is named.
import type { Entitlement, Offer } from '../../commerce/models.ts';
import { toDate } from '../../commerce/index.ts';
import { amount, commerceCurrency, isoDate, marketplaceName } from '../values.ts';
import { computing, type CanonicalRecord } from './record.ts';

/** What the renewal needs besides its entitlement, read by the renewal flow. */
export type RenewalContext = {
  /** The pending draft renewal offer (GET {O}/entitlement/{id}/renewal/draftOffer), when there is one. */
  draft?: Offer;
  /** The entitlement that renewed this one (its agreement came from this one's renewal offer), once it has arrived. */
  successor?: Entitlement;
  /** When these were read: whether the entitlement has ended is judged at this instant (ISO 8601). */
  asOf: string;
};

/**
 * Where the renewal stands, for the CRMs' stage maps: DUE (no draft yet), DRAFTED (a draft renewal offer
 * waits for the buyer), WON (the renewal's entitlement arrived), LOST (the entitlement ended without one).
 */
export type RenewalOutcome = 'DUE' | 'DRAFTED' | 'WON' | 'LOST';

export type CanonicalRenewal = {
  /** The renewal's own key: `renewal-<entitlement id>`, the external id of its opportunity in every CRM. */
  key: string;
  entitlementId: string;
  name: string;
  outcome: RenewalOutcome;
  /** The day the entitlement ends (date only): when the renewal must be closed. */
  closeDate?: string | null;
  amount?: number;
  currency: string;
  marketplace?: string;
  buyerId?: string;
  /** The renewal offer: the pending draft's, else the offer the renewal was accepted on; cleared when neither. */
  renewalOfferId: string | null;
  renewalOfferUrl: string | null;
  /** The entitlement that renewed this one (linked back); cleared until it arrives. */
  renewalEntitlementId: string | null;
};

/** Statuses after which an entitlement runs no more (EXPIRED and CANCELLED are the ones the sandbox knows; A15). */
const ENDED_STATUSES = new Set(['EXPIRED', 'CANCELLED', 'TERMINATED']);

/** The key of an entitlement's renewal opportunity (made from its id alone, so every run finds the same one). */
export function renewalKey(entitlementId: string): string {
  return `renewal-${entitlementId}`;
}

/** Whether an entitlement has ended by `asOf`: a status after which it runs no more, or its end time passed. */
export function hasEnded(entitlement: Pick<Entitlement, 'status' | 'endTime'>, asOf: string): boolean {
  if (entitlement.status && ENDED_STATUSES.has(entitlement.status)) return true;
  const end = toDate(entitlement.endTime ?? undefined);
  return Boolean(end && end.getTime() <= Date.parse(asOf));
}

function outcomeOf(entitlement: Entitlement, context: RenewalContext): RenewalOutcome {
  if (context.successor) return 'WON';
  if (hasEnded(entitlement, context.asOf)) return 'LOST';
  return context.draft ? 'DRAFTED' : 'DUE';
}

export const RENEWAL: CanonicalRecord<Entitlement, RenewalContext | undefined, CanonicalRenewal> = {
  entity: 'renewal',
  id: (record) => record.key,
  describe: {
    key: '"renewal-" + entitlement.id',
    entitlementId: 'entitlement.id',
    name: '"Renewal: " + entitlement.name (else its id)',
    outcome: 'WON once the renewing entitlement arrived; LOST once the entitlement ended (EXPIRED, CANCELLED or past endTime) without one; DRAFTED while a draft renewal offer waits; else DUE',
    closeDate: 'entitlement.endTime (date only)',
    amount: "the draft renewal offer's commit, else the renewing entitlement's, else the entitlement's annualized amount, else its commit",
    currency: "the draft's currency, else the entitlement's (USD when absent)",
    marketplace: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    buyerId: 'entitlement.buyerID',
    renewalOfferId: "the draft renewal offer's id, else the renewing entitlement's offerID (cleared when neither)",
    renewalOfferUrl: "the draft renewal offer's info.privateOfferUrl (cleared when none)",
    renewalEntitlementId: 'the id of the entitlement that renewed this one (cleared until it arrives)',
  },
  compute(entitlement, context) {
    if (!entitlement.id) return { ok: false, reason: 'the entitlement has no id' };
    const asOf = context?.asOf ?? new Date().toISOString();
    const { draft, successor } = context ?? {};
    return computing(`renewal of entitlement ${entitlement.id}`, () => ({
      key: renewalKey(entitlement.id),
      entitlementId: entitlement.id,
      name: `Renewal: ${entitlement.name || entitlement.id}`,
      outcome: outcomeOf(entitlement, { draft, successor, asOf }),
      closeDate: isoDate(entitlement.endTime, 'endTime'),
      amount: amount(draft?.info?.commitAmount) ?? amount(successor?.info?.commitAmount) ?? amount(entitlement.info?.annualizedAmount) ?? amount(entitlement.info?.commitAmount),
      currency: commerceCurrency(draft?.info?.currency ?? entitlement.info?.currency),
      marketplace: marketplaceName(entitlement.partner),
      buyerId: entitlement.buyerID,
      renewalOfferId: draft?.id || successor?.offerID || null,
      renewalOfferUrl: draft?.info?.privateOfferUrl || null,
      renewalEntitlementId: successor?.id ?? null,
    }));
  },
};
