// The fields of a CRM record that show and move its referral's lifecycle (issue #24): each CRM's
// mapping declares one of these; sync/referral-lifecycle.ts computes the values, once for all CRMs.
import type { CrmRecord } from '../crm/connector.ts';
import type { Choice } from '../sync/referral-lifecycle.ts';

export type LifecycleFields = {
  /** The seller's decision on an inbound referral (Accept / Reject), and its reason. */
  decision: string;
  decisionReason: string;
  /** The decision field's value as a choice (each CRM stores a choice its own way). */
  choice(value: unknown): Choice;
  /** When the partner's review of a submission ends (a date-time field). */
  reviewEnds: string;
  /** The referral's reasons (a refusal, a rejection), and how many characters the field holds. */
  errors: string;
  errorsLimit: number;
  /** Where the CRM keeps why a deal was lost, read when it closes lost (none: the CRM has no such field). */
  lossReason?: { fields: string[]; read(record: CrmRecord): string | undefined };
};

/** The lifecycle fields a page reads (the CRM-side fields only; every one optional in an org set up before them). */
export function lifecycleReadFields(fields: LifecycleFields): string[] {
  return [fields.decision, fields.decisionReason, fields.reviewEnds, fields.errors, ...(fields.lossReason?.fields ?? [])];
}
