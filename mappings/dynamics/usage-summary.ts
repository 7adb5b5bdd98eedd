// An entitlement's usage (mappings/canonical/usage-summary.ts) -> its ccs_marketplaceentitlement row, by
// ccs_entitlementid: only these four columns, the entitlement flow writes the rest.
import type { Entitlement } from '../../commerce/models.ts';
import { canonicalMapping } from '../canonical/record.ts';
import { USAGE_SUMMARY, type EntitlementUsage } from '../canonical/usage-summary.ts';
import type { EntityMapping } from '../types.ts';

export const usageSummaryToDynamicsEntitlement: EntityMapping<Entitlement, EntitlementUsage | undefined> = canonicalMapping(USAGE_SUMMARY, {
  object: 'ccs_marketplaceentitlement',
  externalIdField: 'ccs_entitlementid',
  fields: {
    ccs_usageamount: 'usageAmount',
    ccs_commitburndown: 'burnDownPercent',
    ccs_lastusagedate: 'lastUsageDate',
    ccs_failedusagereports: 'failedReports',
  },
});
