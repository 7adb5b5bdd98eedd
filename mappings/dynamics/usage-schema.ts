// The usage table (issue #25 section 4) as `crm-sync setup` creates it: one row per entitlement,
// dimension and day, keyed by ccs_usagekey (entitlement|dimension|date), bound to its
// ccs_marketplaceentitlement. Appended to DYNAMICS_TABLES (schema.ts).
import type { ColumnDeclaration, TableDeclaration } from './schema.ts';

/** The entitlement's usage so far, on ccs_marketplaceentitlement (mappings/dynamics/usage-summary.ts). */
export const USAGE_SUMMARY_COLUMNS: ColumnDeclaration[] = [
  { logicalName: 'ccs_usageamount', label: 'Usage Amount', type: 'Decimal', precision: 2 },
  { logicalName: 'ccs_commitburndown', label: 'Commit Burn Down (%)', type: 'Decimal', precision: 2 },
  { logicalName: 'ccs_lastusagedate', label: 'Last Usage Date', type: 'DateOnly' },
  { logicalName: 'ccs_failedusagereports', label: 'Failed Usage Reports', type: 'Integer' },
];

export const USAGE_TABLE: TableDeclaration = {
  logicalName: 'ccs_marketplaceusage',
  entitySetName: 'ccs_marketplaceusages',
  label: 'Marketplace Usage',
  pluralLabel: 'Marketplace Usage',
  custom: true,
  primaryName: { logicalName: 'ccs_name', label: 'Name', maxLength: 400 },
  columns: [
    { logicalName: 'ccs_usagekey', label: 'Commerce Usage Key', type: 'String', maxLength: 400 },
    { logicalName: 'ccs_dimension', label: 'Dimension', type: 'String', maxLength: 400 },
    { logicalName: 'ccs_usagedate', label: 'Usage Date', type: 'DateOnly' },
    { logicalName: 'ccs_quantity', label: 'Quantity', type: 'Decimal', precision: 6 },
    { logicalName: 'ccs_amount', label: 'Amount', type: 'Decimal', precision: 2 },
    { logicalName: 'ccs_failedreports', label: 'Failed Reports', type: 'Integer' },
  ],
  lookups: [{ logicalName: 'ccs_marketplaceentitlementid', label: 'Entitlement', target: 'ccs_marketplaceentitlement' }],
  keys: [{ logicalName: 'ccs_usagekey_key', label: 'Commerce Usage Key', columns: ['ccs_usagekey'] }],
};
