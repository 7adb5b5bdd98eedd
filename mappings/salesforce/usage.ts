// A day of usage -> Marketplace_Usage__c, keyed by Commerce_Usage_Key__c (entitlement|dimension|date),
// linked to its Marketplace_Entitlement__c by the entitlement's external id. The values are the
// canonical usage day's (mappings/canonical/usage.ts).
import type { UsageDay } from '../../flows/usage-reads.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import { USAGE_DAY } from '../canonical/usage.ts';
import type { EntityMapping } from '../types.ts';

export const usageToMarketplaceUsage: EntityMapping<UsageDay> = canonicalMapping(USAGE_DAY, {
  object: 'Marketplace_Usage__c',
  externalIdField: 'Commerce_Usage_Key__c',
  fields: {
    Name: 'name',
    Entitlement__r: lookup('entitlementId', 'Commerce_Entitlement_Id__c', 'the Marketplace_Entitlement__c, by Commerce_Entitlement_Id__c = the day\'s entitlementID'),
    Dimension__c: 'dimension',
    Usage_Date__c: 'usageDate',
    Quantity__c: 'quantity',
    Amount__c: 'amount',
    Failed_Reports__c: 'failedReports',
  },
});
