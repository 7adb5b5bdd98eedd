// A day of usage of one entitlement and one billing dimension, as every CRM shows it (issue #25
// section 4): computed once from the day's usage record groups and reports (A16). The quantity is what
// was reported to the marketplace plus the groups not reported yet (the day's usage so far); the amount
// is what the marketplace was billed for the reported part (a day nothing was reported of has none: left
// empty, never invented). Keyed entitlement|dimension|date, so re-running a day finds the same record and
// an unchanged day writes nothing (its content hash is the same).
import type { UsageDay } from '../../flows/usage-reads.ts';
import type { CanonicalRecord } from './record.ts';

export type CanonicalUsageDay = {
  /** entitlement|dimension|date: the record's external id. */
  key: string;
  name: string;
  entitlementId: string;
  dimension: string;
  /** The UTC day (YYYY-MM-DD). */
  usageDate: string;
  quantity: number;
  amount?: number;
  /** Usage record groups of the day that failed to report (REPORT_FAILED): revenue at risk. */
  failedReports: number;
};

const round = (value: number, digits: number) => Number(value.toFixed(digits));

export const USAGE_DAY: CanonicalRecord<UsageDay, unknown, CanonicalUsageDay> = {
  entity: 'usage',
  id: (record) => record.key,
  describe: {
    key: 'entitlementID|dimensionKey|date of the day (usageRecordGroup/aggregate row id)',
    name: 'dimensionKey and date, e.g. "api_calls 2026-02-01"',
    entitlementId: "the day's entitlementID",
    dimension: "the day's dimensionKey",
    usageDate: "the day's date",
    quantity: 'usageRecordReport/aggregate quantity of the day + usageRecordGroup/aggregate pendingQuantity (groups not reported yet)',
    amount: 'usageRecordReport/aggregate amount of the day (empty while nothing of the day is reported)',
    failedReports: 'usageRecordGroup/aggregate failedCount: groups of the day in REPORT_FAILED',
  },
  compute(day) {
    const reported = day.reported;
    return {
      ok: true,
      value: {
        key: day.id,
        name: `${day.dimensionKey} ${day.date}`,
        entitlementId: day.entitlementID,
        dimension: day.dimensionKey,
        usageDate: day.date,
        quantity: round((reported?.quantity ?? 0) + day.pendingQuantity, 6),
        ...(reported && { amount: round(reported.amount, 2) }),
        failedReports: day.failedCount,
      },
    };
  },
};
