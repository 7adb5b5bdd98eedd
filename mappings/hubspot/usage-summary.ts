// An entitlement's usage (mappings/canonical/usage-summary.ts) -> its marketplace_entitlement custom
// object record, by entitlement_id: only these four properties, the entitlement flow writes the rest.
// Where the account has no custom objects (entitlements as line items on the offer's deal), the
// documented fallback: the same four properties on the entitlement's line item, by commerce_entitlement_id
// (its description stays the entitlement flow's). Days of usage have no fallback object (README).
import type { Entitlement } from '../../commerce/models.ts';
import { canonicalMapping, type FieldTable } from '../canonical/record.ts';
import { USAGE_SUMMARY, type CanonicalUsageSummary, type EntitlementUsage } from '../canonical/usage-summary.ts';
import type { EntityMapping } from '../types.ts';
import { ENTITLEMENT_FALLBACK_OBJECT, ENTITLEMENT_ID_PROPERTY, ENTITLEMENT_OBJECT } from './schema.ts';

const FIELDS: FieldTable<CanonicalUsageSummary> = {
  usage_amount: 'usageAmount',
  commit_burn_down_percent: 'burnDownPercent',
  last_usage_date: 'lastUsageDate',
  failed_usage_reports: 'failedReports',
};

export const usageSummaryToHubSpotEntitlement: EntityMapping<Entitlement, EntitlementUsage | undefined> = canonicalMapping(USAGE_SUMMARY, {
  object: ENTITLEMENT_OBJECT,
  externalIdField: ENTITLEMENT_ID_PROPERTY,
  fields: FIELDS,
});

/** The fallback: the summary on the entitlement's line item. */
export const usageSummaryToLineItem: EntityMapping<Entitlement, EntitlementUsage | undefined> = canonicalMapping(USAGE_SUMMARY, {
  object: ENTITLEMENT_FALLBACK_OBJECT,
  externalIdField: 'commerce_entitlement_id',
  fields: FIELDS,
});
