// The partner's review of a referral the seller submitted (assumption A13). While it lasts the seller's
// API client cannot update the referral (409); when it ends the partner accepts or rejects it. The
// outcome is fixed by the seed and the referral id (about one in five rejected), so it does not depend
// on the order of calls; it is applied lazily, by settleReviews, which runs at every tick of the change
// timer and before every request, so the change is seen at the first look after the review's end.
// A rejection carries the partner's reason in `statusReason`, like AWS Partner Central's
// LifeCycle.ReviewStatusReason / ReviewComments (A13); an acceptance clears it.
import { failedPrecondition } from './errors.ts';
import { createRandom } from './prng.ts';
import { emitEvent, type SandboxState } from './state.ts';
import type { Referral } from './types.ts';

/** Share of reviews the partner ends with REJECTED. */
const REJECTED_SHARE = 0.2;

/**
 * Why the partner rejects a referral, in the partner's words: what the salesperson must fix before
 * submitting again. Worded after AWS Partner Central's review reasons and rejection reasons (A13).
 */
export const PARTNER_REJECTION_REASONS = [
  "Insufficient opportunity details: add the customer's business problem and expected spend",
  'Duplicate opportunity: the partner already has this customer project from another referral',
  'Customer not identifiable: add the customer website and a full company address',
  'Next steps unclear: say what the partner is asked to do and by when',
] as const;

/** Starts a review when a write of the seller's API client moved an outbound referral into SUBMITTED. */
export function startReviewIfSubmitted(state: SandboxState, referral: Referral, previousStatus: string | undefined): void {
  const seconds = state.settings.partnerReviewSeconds;
  // An inbound referral in SUBMITTED awaits the seller's decision, not the partner's review.
  if (referral.direction === 'INBOUND') return;
  if (referral.status !== 'SUBMITTED' || previousStatus === 'SUBMITTED' || !(seconds > 0)) return;
  referral.partnerReviewEndTime = new Date(state.nowMs() + seconds * 1000).toISOString();
}

/** The end of the review still running on this referral, if one is. */
export function reviewEnd(state: SandboxState, referral: Referral): string | undefined {
  const end = referral.partnerReviewEndTime;
  return typeof end === 'string' && referral.status === 'SUBMITTED' && Date.parse(end) > state.nowMs() ? end : undefined;
}

/** A 409 for an update of the seller's API client during the review (A2: checked after the fields). */
export function refuseDuringReview(state: SandboxState, referral: Referral): void {
  const end = reviewEnd(state, referral);
  if (end) throw failedPrecondition(`referral ${referral.id} is under partner review until ${end}; updates are accepted again after that`, referral.status);
}

export type PartnerDecision = { status: 'ACCEPTED' } | { status: 'REJECTED'; statusReason: string };

/**
 * FNV-1a of the id mixed with the seed: the partner's answer to one referral, and the reason of a
 * rejection, the same on every run. The first draw decides (as before the reasons existed, so the same
 * referrals are rejected), the second picks the reason.
 */
export function partnerDecision(seed: number, referralId: string): PartnerDecision {
  let hash = 0x811c9dc5;
  for (let i = 0; i < referralId.length; i++) hash = Math.imul(hash ^ referralId.charCodeAt(i), 0x01000193);
  const random = createRandom((hash ^ Math.imul(seed, 0x9e3779b1)) >>> 0);
  if (random.next() >= REJECTED_SHARE) return { status: 'ACCEPTED' };
  return { status: 'REJECTED', statusReason: PARTNER_REJECTION_REASONS[Math.floor(random.next() * PARTNER_REJECTION_REASONS.length)]! };
}

/** Applies the partner's decision to every referral whose review has ended; each is one REFERRAL event. */
export function settleReviews(state: SandboxState): void {
  const nowMs = state.nowMs();
  for (const referral of state.store.referrals.rows) {
    const end = referral.partnerReviewEndTime;
    if (typeof end !== 'string' || referral.status !== 'SUBMITTED' || state.store.injected.has(referral)) continue;
    if (!(Date.parse(end) <= nowMs)) continue;
    delete referral.partnerReviewEndTime;
    const decision = partnerDecision(state.settings.seed, referral.id);
    referral.status = decision.status;
    if (decision.status === 'REJECTED') referral.statusReason = decision.statusReason;
    else delete referral.statusReason;
    referral.lastUpdateTime = state.nowIso();
    emitEvent(state, {
      action: 'STATUS_CHANGED',
      entityType: 'REFERRAL',
      entityID: referral.id,
      entityName: referral.name,
      entityStatus: referral.status,
      partner: referral.partner,
      timestamp: referral.lastUpdateTime,
      createdBySource: 'SYSTEM',
      info: { previousStatus: 'SUBMITTED', decidedBy: 'PARTNER', reviewEndTime: end, ...(decision.status === 'REJECTED' ? { statusReason: decision.statusReason } : {}) },
    });
  }
}
