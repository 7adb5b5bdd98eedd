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
  const reviewEnds = status === 'SUBMITTED' && typeof referral.partnerReviewEndTime === 'string' ? wholeSeconds(referral.partnerReviewEndTime) : null;
  return { status, stage: referral.stage ?? null, reviewEnds, rejection: status === 'REJECTED' && referral.direction !== 'INBOUND' ? rejectionText(referral) : null };
}

/** The partner's rejection as a salesperson reads it, with what to do next. */
export function rejectionText(referral: Referral): string {
  const partner = MARKETPLACE_NAMES[String(referral.partner)] ?? referral.partner ?? 'The partner';
  const reason = typeof referral.statusReason === 'string' && referral.statusReason.trim() ? referral.statusReason.trim() : 'no reason was given';
  return `${partner} rejected the referral: ${reason}. To submit it again, change what the partner asks for in the opportunity's name, amount, close date, description or partner, and save it: it is submitted again once.`;
}

/**
 * The commerce update a seller's decision asks for: only an inbound referral still awaiting the seller
 * (SUBMITTED) is decided, once; a referral already decided (by this or another seller) asks nothing.
 */
export function decisionPatch(referral: Referral, decision: Decision | undefined): Partial<Referral> | undefined {
  if (!decision || referral.direction !== 'INBOUND' || referral.status !== 'SUBMITTED') return undefined;
  return decision.status === 'REJECTED' && decision.reason ? { status: 'REJECTED', statusReason: decision.reason } : { status: decision.status };
}

/** An inbound referral already decided the other way (by another seller, or on the marketplace): the seller's choice cannot be taken. */
export function decidedOtherwise(referral: Referral, decision: Decision): boolean {
  return referral.direction === 'INBOUND' && (referral.status === 'ACCEPTED' || referral.status === 'REJECTED') && referral.status !== decision.status;
}

/** Why the commerce side did not take a seller's decision, for the record's errors field. */
export function decisionRefusal(decision: Decision, message: string): string {
  return `Your decision to ${decision.status === 'ACCEPTED' ? 'accept' : 'reject'} the referral was not taken by the marketplace: ${message}`;
}

/** A seller's choice, as each CRM's mapping reads its decision field (mappings/<crm>/referral-lifecycle.ts). */
export type Choice = 'accept' | 'reject' | undefined;

/** The decision a seller's choice and reason make. */
export function decisionOf(choice: Choice, reason: unknown): Decision | undefined {
  const why = typeof reason === 'string' && reason.trim() ? reason.trim() : undefined;
  if (choice === 'accept') return { status: 'ACCEPTED' };
  if (choice === 'reject') return { status: 'REJECTED', ...(why && { reason: why }) };
  return undefined;
}

/**
 * Two date-times that name the same second (a CRM may answer another form of the value written, and
 * Salesforce and Dataverse keep whole seconds: docs/crm-wire-behaviour.md). Compared to the second, a
 * value written and read back is never news, so it is never written again.
 */
export function sameInstant(a: unknown, b: unknown): boolean {
  if ((a ?? null) === null || (b ?? null) === null) return (a ?? null) === (b ?? null);
  const left = Math.floor(instant(a) / 1000);
  return Number.isFinite(left) && left === Math.floor(instant(b) / 1000);
}

/** An ISO 8601 date-time cut to the second, as every CRM keeps it (an unreadable value stays as it is). */
function wholeSeconds(text: string): string {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z') : text;
}

/** Epoch milliseconds of a date-time as CRMs send it: ISO 8601 text, or milliseconds (HubSpot may answer either). */
function instant(value: unknown): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
}
