// An entitlement's usage (mappings/canonical/usage-summary.ts) -> its Marketplace_Entitlement__c, by the
// entitlement's external id: only these four fields, the entitlement flow writes the rest.
import type { Entitlement } from '../../commerce/models.ts';
import { canonicalMapping } from '../canonical/record.ts';
import { USAGE_SUMMARY, type EntitlementUsage } from '../canonical/usage-summary.ts';
import type { EntityMapping } from '../types.ts';

export const usageSummaryToMarketplaceEntitlement: EntityMapping<Entitlement, EntitlementUsage | undefined> = canonicalMapping(USAGE_SUMMARY, {
  object: 'Marketplace_Entitlement__c',
  externalIdField: 'Commerce_Entitlement_Id__c',
  fields: {
    Usage_Amount__c: 'usageAmount',
    Commit_Burn_Down__c: 'burnDownPercent',
    Last_Usage_Date__c: 'lastUsageDate',
    Failed_Usage_Reports__c: 'failedReports',
  },
});
