// The referral's lifecycle as the CRM record shows and moves it, CRM-neutral and pure (issue #24): what a
// referral shows a salesperson (its status, stage, the partner's review window and a rejection's
// reasons), and what a seller's decision on an inbound referral asks of the commerce side. Each CRM's
// mapping (mappings/<crm>/referral-lifecycle.ts) only names the fields that take these values and
// converts their types; activities/stage-sync.ts applies them to the pairs of a page.
import type { Referral } from '../commerce/models.ts';
import { MARKETPLACE_NAMES } from '../mappings/values.ts';

/** A seller's decision on an inbound referral, as the commerce side takes it (A13). */
export type Decision = { status: 'ACCEPTED' | 'REJECTED'; reason?: string };

/** What the record shows of its referral: computed once here, written by each CRM's fields. */
export type ReferralShown = {
  status: string | null;
  stage: string | null;
  /** While the partner reviews a submission: when the review ends (ISO 8601); else none. */
  reviewEnds: string | null;
  /** An outbound referral the partner rejected: its reasons, in the partner's words; else none. */
  rejection: string | null;
};

export function referralShown(referral: Referral): ReferralShown {
  const status = referral.status ?? null;
  const reviewEnds = status === 'SUBMITTED' && typeof referral.partnerReviewEndTime === 'string' ? referral.partnerReviewEndTime : null;
  return { status, stage: referral.stage ?? null, reviewEnds, rejection: status === 'REJECTED' && referral.direction !== 'INBOUND' ? rejectionText(referral) : null };
}

/** The partner's rejection as a salesperson reads it, with what to do next. */
export function rejectionText(referral: Referral): string {
  const partner = MARKETPLACE_NAMES[String(referral.partner)] ?? referral.partner ?? 'The partner';
  const reason = typeof referral.statusReason === 'string' && referral.statusReason.trim() ? referral.statusReason.trim() : 'no reason was given';
  return `${partner} rejected the referral: ${reason}. Fix the opportunity and save it: it is submitted again once.`;
}

/**
 * The commerce update a seller's decision asks for: only an inbound referral still awaiting the seller
 * (SUBMITTED) is decided, once; a referral already decided (by this or another seller) asks nothing.
 */
export function decisionPatch(referral: Referral, decision: Decision | undefined): Partial<Referral> | undefined {
  if (!decision || referral.direction !== 'INBOUND' || referral.status !== 'SUBMITTED') return undefined;
  return decision.status === 'REJECTED' && decision.reason ? { status: 'REJECTED', statusReason: decision.reason } : { status: decision.status };
}

/** Why the commerce side did not take a seller's decision, for the record's errors field. */
export function decisionRefusal(decision: Decision, message: string): string {
  return `Your decision to ${decision.status === 'ACCEPTED' ? 'accept' : 'reject'} the referral was not taken by the marketplace: ${message}`;
}

/** A decision field's value, as the CRMs send a choice (a label, an option's value, or its number). */
export function decisionOf(value: unknown, reason: unknown): Decision | undefined {
  const text = String(value ?? '').trim().toLowerCase();
  const why = typeof reason === 'string' && reason.trim() ? reason.trim() : undefined;
  if (text === 'accept' || text === 'accepted' || text === '100000000') return { status: 'ACCEPTED' };
  if (text === 'reject' || text === 'rejected' || text === '100000001') return { status: 'REJECTED', ...(why && { reason: why }) };
  return undefined;
}

/** Two date-times that name the same instant (a CRM may answer another form of the value written). */
export function sameInstant(a: unknown, b: unknown): boolean {
  if ((a ?? null) === null || (b ?? null) === null) return (a ?? null) === (b ?? null);
  const left = instant(a);
  return Number.isFinite(left) && left === instant(b);
}

/** Epoch milliseconds of a date-time as CRMs send it: ISO 8601 text, or milliseconds (HubSpot may answer either). */
function instant(value: unknown): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
}
