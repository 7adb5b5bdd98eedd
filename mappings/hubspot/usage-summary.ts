// An entitlement's usage (mappings/canonical/usage-summary.ts) -> its marketplace_entitlement custom
// object record, by entitlement_id: only these four properties, the entitlement flow writes the rest.
import type { Entitlement } from '../../commerce/models.ts';
import { canonicalMapping } from '../canonical/record.ts';
import { USAGE_SUMMARY, type EntitlementUsage } from '../canonical/usage-summary.ts';
import type { EntityMapping } from '../types.ts';
import { ENTITLEMENT_ID_PROPERTY, ENTITLEMENT_OBJECT } from './schema.ts';

export const usageSummaryToHubSpotEntitlement: EntityMapping<Entitlement, EntitlementUsage | undefined> = canonicalMapping(USAGE_SUMMARY, {
  object: ENTITLEMENT_OBJECT,
  externalIdField: ENTITLEMENT_ID_PROPERTY,
  fields: {
    usage_amount: 'usageAmount',
    commit_burn_down_percent: 'burnDownPercent',
    last_usage_date: 'lastUsageDate',
    failed_usage_reports: 'failedReports',
  },
});
