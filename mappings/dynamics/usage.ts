// A day of usage -> ccs_marketplaceusage, keyed by ccs_usagekey (entitlement|dimension|date), bound to
// its ccs_marketplaceentitlement by the entitlement's key. The values are the canonical usage day's
// (mappings/canonical/usage.ts).
import type { UsageDay } from '../../flows/usage-reads.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import { USAGE_DAY } from '../canonical/usage.ts';
import type { EntityMapping } from '../types.ts';

export const usageToDynamicsUsage: EntityMapping<UsageDay> = canonicalMapping(USAGE_DAY, {
  object: 'ccs_marketplaceusage',
  externalIdField: 'ccs_usagekey',
  fields: {
    ccs_name: 'name',
    ccs_marketplaceentitlementid: lookup('entitlementId', 'ccs_entitlementid', "the ccs_marketplaceentitlement, by ccs_entitlementid = the day's entitlementID"),
    ccs_dimension: 'dimension',
    ccs_usagedate: 'usageDate',
    ccs_quantity: 'quantity',
    ccs_amount: 'amount',
    ccs_failedreports: 'failedReports',
  },
});
