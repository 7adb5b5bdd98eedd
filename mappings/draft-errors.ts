// Where a private-offer draft's refusal goes on the CRM record, on every CRM alike. The draft flow has an
// errors field of its own (Salesforce Cosell_Draft_Errors__c, HubSpot cosell_draft_errors, Dynamics
// ccs_coselldrafterrors, made by `crm-sync setup`), so the referral flow's reasons (in the co-sell errors
// field) and the draft's never erase each other: each flow writes and clears only its own field.
// An org set up before the field existed keeps what it did before: the draft's reasons go into the
// co-sell errors field, marked "Private offer draft:", and nothing clears them there (that field is the
// referral's too); `crm-sync setup` adds the field.
import type { CrmRecord } from '../crm/connector.ts';
import type { CrmSide } from '../flows/crm-to-commerce.ts';

export const DRAFT_REFUSAL_PREFIX = 'Private offer draft: ';

/** The draft side's write-back of refusals and their clearing, given its own field, the shared one and the CRM's text limit. */
export function draftErrorsWriteBack(fields: { own: string; shared: string }, limit: number): Pick<CrmSide<unknown>, 'refused' | 'fitWrite'> & { cleared: CrmRecord } {
  return {
    refused: (message) => ({ [fields.own]: message.slice(0, limit) }),
    // Once the draft exists, an earlier refusal of it no longer holds.
    cleared: { [fields.own]: null },
    fitWrite(record, has) {
      if (has(fields.own) || !(fields.own in record)) return record;
      const { [fields.own]: reasons, ...rest } = record;
      return typeof reasons === 'string' ? { ...rest, [fields.shared]: `${DRAFT_REFUSAL_PREFIX}${reasons}`.slice(0, limit) } : rest;
    },
  };
}
