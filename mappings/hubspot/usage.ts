// A day of usage -> the custom object marketplace_usage, keyed by usage_key (entitlement|dimension|date),
// associated to its marketplace_entitlement. The values are the canonical usage day's
// (mappings/canonical/usage.ts). Where the account has no custom objects (HubSpot sells them with
// Enterprise) there is no fallback object for days of usage: the usage flow is not run there (a
// connection does not choose it), as a line item per day would bury the offer's deal in rows.
import type { UsageDay } from '../../flows/usage-reads.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import { USAGE_DAY } from '../canonical/usage.ts';
import type { EntityMapping } from '../types.ts';
import { USAGE_ID_PROPERTY, USAGE_OBJECT } from './usage-schema.ts';

export const usageToHubSpotUsage: EntityMapping<UsageDay> = canonicalMapping(USAGE_DAY, {
  object: USAGE_OBJECT,
  externalIdField: USAGE_ID_PROPERTY,
  fields: {
    usage_name: 'name',
    dimension: 'dimension',
    usage_date: 'usageDate',
    quantity: 'quantity',
    amount: 'amount',
    failed_reports: 'failedReports',
    marketplace_entitlement: lookup('entitlementId', 'entitlement_id', "associated to its marketplace_entitlement (entitlement_id = the day's entitlementID)"),
  },
});
