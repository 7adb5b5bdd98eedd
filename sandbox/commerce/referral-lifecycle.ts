// The seller's side of a referral's lifecycle (A13): deciding an inbound referral, closing a deal, and
// the two reasons a referral carries. `statusReason` says why a referral is REJECTED (the partner's
// words on an outbound one, the seller's on an inbound one; the seller may also note why an inbound one
// was ACCEPTED); `closedLostReason` says why a deal was lost and goes with stage Closed Lost only.
// The partner's own decision on an outbound referral is in partner-review.ts.
import { failedPrecondition } from './errors.ts';
import type { Referral } from './types.ts';

export type FieldError = { field: string; message: string };

const DECISIONS = ['ACCEPTED', 'REJECTED'];
/** Stages that end the deal (A6): Launched is won, Closed Lost is lost; either closes the referral. */
const CLOSING_STAGES = ['Launched', 'Closed Lost'];
const CLOSED_LOST = 'Closed Lost';
const shown = (value: unknown) => JSON.stringify(value) ?? String(value);
const given = (value: unknown) => value !== undefined && value !== null;

/**
 * The reasons' rules on a referral as it would be saved (create, validate, batchCreate and an update's
 * result). `status` and `stage` are the ones the referral would have, defaults included.
 */
export function reasonErrors(referral: Record<string, unknown>, status: unknown, stage: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const { statusReason, closedLostReason } = referral;
  if (given(statusReason)) {
    if (typeof statusReason !== 'string' || statusReason.trim() === '') errors.push({ field: 'statusReason', message: `statusReason must be a non-empty string, got ${shown(statusReason)}` });
    else if (!DECISIONS.includes(status as string)) errors.push({ field: 'statusReason', message: `statusReason explains a decision: it goes with status "REJECTED" or "ACCEPTED", not with status ${shown(status)}` });
  }
  if (given(closedLostReason)) {
    if (typeof closedLostReason !== 'string' || closedLostReason.trim() === '') errors.push({ field: 'closedLostReason', message: `closedLostReason must be a non-empty string, got ${shown(closedLostReason)}` });
    else if (stage !== CLOSED_LOST) errors.push({ field: 'closedLostReason', message: `closedLostReason says why a deal was lost: it goes with stage "Closed Lost" only, not with stage ${shown(stage)}` });
  }
  return errors;
}

/** An update's own rule: a statusReason comes with the decision it explains, in the same body. */
export function updateBodyErrors(changes: Record<string, unknown>): FieldError[] {
  if (!given(changes.statusReason) || DECISIONS.includes(changes.status as string)) return [];
  const sentWith = changes.status === undefined ? 'without a status' : `with status ${shown(changes.status)}`;
  return [{ field: 'statusReason', message: `statusReason explains the seller's decision: send it with status "ACCEPTED" or "REJECTED", it was sent ${sentWith}` }];
}

/**
 * What an update implies beyond its fields, applied to the referral as it would be saved: a closing
 * stage sent without a status closes the referral; a status that moves on drops the old statusReason
 * (a resubmission starts clean); a stage that leaves Closed Lost drops the closedLostReason.
 */
export function applyImpliedChanges(current: Referral, changes: Record<string, unknown>, next: Record<string, unknown>): void {
  if (CLOSING_STAGES.includes(changes.stage as string) && !('status' in changes)) next.status = 'CLOSED';
  if (next.status !== current.status && !('statusReason' in changes)) delete next.statusReason;
  if (next.stage !== CLOSED_LOST && !('closedLostReason' in changes)) delete next.closedLostReason;
}

/**
 * Whether an update is the seller's decision: it moves the status to ACCEPTED or REJECTED, or gives a
 * decided referral another reason. Sending the status (and reason) it already has again is not a new
 * decision, so a retry after a lost answer is harmless.
 */
export function isSellerDecision(current: Referral, changes: Record<string, unknown>): boolean {
  if (!DECISIONS.includes(changes.status as string)) return false;
  return changes.status !== current.status || (given(changes.statusReason) && changes.statusReason !== current.statusReason);
}

/**
 * A 409 for a decision the seller may not make (A13, checked after the fields as A2 orders): the partner
 * decides an outbound referral, and the seller decides an inbound one once, while it is SUBMITTED.
 */
export function refuseSellerDecision(current: Referral, changes: Record<string, unknown>): void {
  if (!isSellerDecision(current, changes)) return;
  if (current.direction !== 'INBOUND') {
    throw failedPrecondition(`only the partner decides an outbound referral: referral ${current.id} is ${current.status}; the partner accepts or rejects it after reviewing a submission`, current.status);
  }
  if (current.status !== 'SUBMITTED') {
    throw failedPrecondition(`the seller accepts or rejects an inbound referral only while it is SUBMITTED; referral ${current.id} is ${current.status}`, current.status);
  }
}
