// The records a co-sell flow can use, declared as data for the CRM's own filter (crm/connector.ts
// RecordFilter): Salesforce turns them into SOQL, HubSpot into search filter groups, Dynamics 365 into
// an OData $filter (each leaves out what it cannot say with the same meaning, and reads the whole window).
// HubSpot and Dynamics declare the checkbox rule and the private-offer request only: their picklist and
// stage values are read as labels but filtered by internal values.
//
// Both flows may narrow: a record outside the filter asks nothing (an Opportunity that stops being shared,
// or stops asking for a private offer, is left as it is: the referral or draft already made stays, and
// nothing is withdrawn). The stage sync must not narrow by the share rule: a paired Opportunity's stage
// matters whether or not it is still shared; it narrows to records holding a referral id (pairedFilter).
//
// One read serves every co-sell pass of a run (issue #24 item 9): its filter is the union of the passes'
// (unionFilter), and a pass that reads everything makes the read unnarrowed.
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

/** The same private-offer request on HubSpot and Dynamics 365 (yes/no properties, columns). */
export const PRIVATE_OFFER_REQUESTED_BY_KIND = { hubspot: { field: 'private_offer_requested', equals: true }, dynamics: { field: 'ccs_privateofferrequested', equals: true } } as const satisfies Record<string, RecordFilter>;

/** A checkbox share rule as a filter, for CRMs that filter labels' fields by other values (HubSpot, Dynamics 365). */
export function checkboxShareFilter(rule: ShareRule): RecordFilter | undefined {
  return rule.by === 'checkbox' ? { field: rule.field, equals: true } : undefined;
}

/**
 * The stage pass's records: those holding a referral id, made from them (the id written back) or made
 * for an inbound referral (its key). A pair whose id never reached the record is retried by the
 * write-back retry (activities/cosell-write-back-retry.ts) and is read from then on.
 */
export function pairedFilter(referralIdField: string): RecordFilter {
  return { field: referralIdField, present: true };
}

/** Any record one of the passes can use; undefined (read everything) when a pass declares no filter. */
export function unionFilter(filters: (RecordFilter | undefined)[]): RecordFilter | undefined {
  if (filters.length === 0 || filters.some((filter) => filter === undefined)) return undefined;
  return filters.length === 1 ? filters[0] : { anyOf: filters as RecordFilter[] };
}
