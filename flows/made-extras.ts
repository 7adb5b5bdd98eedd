// What a flow's target may tell the run about a commerce record it made or moved on, besides the record
// itself (flows/crm-to-commerce.ts Made): audit rows to record (who approved a private offer, that it was
// published) and whether the record is settled. An unsettled record (a held draft whose publication a
// crash interrupted) keeps its request marked unsent, so the record's next read takes its next step
// through the target's `advance` instead of taking it for done. activities/crm-to-commerce.ts reads these.
import type { Made } from './crm-to-commerce.ts';

/** One audit row (store/audit.ts): the action, who did it as the CRM names them (none: the worker), and what it concerned. */
export type MadeAudit = { action: string; by?: string; detail?: Record<string, unknown> };

export type MadeExtras = {
  audit?: MadeAudit[];
  /** false: not yet where its request asks (the next read of the record sends the request again through `advance`). */
  settled?: boolean;
};

export type MadeWithExtras = Made & MadeExtras;

export function extrasOf(made: Made): MadeExtras {
  const { audit, settled } = made as MadeWithExtras;
  return { ...(Array.isArray(audit) && { audit }), ...(settled === false && { settled }) };
}

/** The intent's payload hash for a made record: its request's, or one no request has while it is unsettled. */
export function madeHash(made: Made, requestHash: string): string {
  return extrasOf(made).settled === false ? `unsettled:${requestHash}` : requestHash;
}
