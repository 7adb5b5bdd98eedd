// The Opportunity's lifecycle fields (issue #24). Salesforce has no standard loss-reason field on
// Opportunity (docs/crm-wire-behaviour.md), so a loss goes to the marketplace without one.
import type { LifecycleFields } from '../lifecycle-fields.ts';

export const OPPORTUNITY_LIFECYCLE: LifecycleFields = {
  decision: 'Cosell_Decision__c',
  decisionReason: 'Cosell_Decision_Reason__c',
  // A picklist: its API values are the labels Accept / Reject.
  choice: (value) => (value === 'Accept' ? 'accept' : value === 'Reject' ? 'reject' : undefined),
  reviewEnds: 'Cosell_Review_Ends__c',
  errors: 'Cosell_Errors__c',
  errorsLimit: 32_000,
};
