// The partner's review of a referral the seller submitted (assumption A13). While it lasts the seller's
// API client cannot update the referral (409); when it ends the partner accepts or rejects it. The
// outcome is fixed by the seed and the referral id (about one in five rejected), so it does not depend
// on the order of calls; it is applied lazily, by settleReviews, which runs at every tick of the change
// timer and before every request, so the change is seen at the first look after the review's end.
import { failedPrecondition } from './errors.ts';
import { createRandom } from './prng.ts';
import { emitEvent, type SandboxState } from './state.ts';
import type { Referral } from './types.ts';

/** Share of reviews the partner ends with REJECTED. */
const REJECTED_SHARE = 0.2;

/** Starts a review when a write of the seller's API client moved the referral into SUBMITTED. */
export function startReviewIfSubmitted(state: SandboxState, referral: Referral, previousStatus: string | undefined): void {
  const seconds = state.settings.partnerReviewSeconds;
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

/** FNV-1a of the id mixed with the seed: the partner's answer to one referral, the same on every run. */
export function partnerAccepts(seed: number, referralId: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < referralId.length; i++) hash = Math.imul(hash ^ referralId.charCodeAt(i), 0x01000193);
  return createRandom((hash ^ Math.imul(seed, 0x9e3779b1)) >>> 0).next() >= REJECTED_SHARE;
}

/** Applies the partner's decision to every referral whose review has ended; each is one REFERRAL event. */
export function settleReviews(state: SandboxState): void {
  const nowMs = state.nowMs();
  for (const referral of state.store.referrals.rows) {
    const end = referral.partnerReviewEndTime;
    if (typeof end !== 'string' || referral.status !== 'SUBMITTED' || state.store.injected.has(referral)) continue;
    if (!(Date.parse(end) <= nowMs)) continue;
    delete referral.partnerReviewEndTime;
    referral.status = partnerAccepts(state.settings.seed, referral.id) ? 'ACCEPTED' : 'REJECTED';
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
      info: { previousStatus: 'SUBMITTED', decidedBy: 'PARTNER', reviewEndTime: end },
    });
  }
}
