// The records a co-sell flow can use, declared as data for the CRM's own filter (crm/connector.ts
// RecordFilter). Declared for Salesforce only: its connector turns them into SOQL; HubSpot and
// Dynamics 365 read the whole window and the flow decides record by record.
//
// Both flows may narrow: a record outside the filter asks nothing (an Opportunity that stops being shared,
// or stops asking for a private offer, is left as it is: the referral or draft already made stays, and
// nothing is withdrawn). The stage sync must not narrow: a paired Opportunity's stage matters whether
// or not it is still shared.
import type { RecordFilter } from '../crm/connector.ts';
import type { ShareRule } from '../sync/connection-settings.ts';

/** The connection's share rule as a filter: the checkbox true, the picklist or the stage among its values. */
export function sharedFilter(rule: ShareRule, stageField: string): RecordFilter {
  if (rule.by === 'checkbox') return { field: rule.field, equals: true };
  if (rule.by === 'picklist') return { field: rule.field, oneOf: rule.values };
  return { field: stageField, oneOf: rule.stages };
}

/** Opportunities asking for a private offer (mappings/salesforce/opportunity-draft-offer.ts asks nothing of the others). */
export const PRIVATE_OFFER_REQUESTED: RecordFilter = { field: 'Private_Offer_Requested__c', equals: true };
