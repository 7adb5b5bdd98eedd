// What an entitlement's usage comes to, shown on the entitlement in every CRM (issue #25 section 4):
// the amount the marketplace billed for its usage so far, the commit burned down by it (billed usage /
// committed, in %), the last day with usage, and the usage record groups that failed to report
// (REPORT_FAILED: revenue at risk until retried). Computed once from the entitlement (its commit, as the
// canonical entitlement has it) and its days of usage (A16); a value a marketplace does not give is left
// empty (no commit: no burn-down), never invented.
import type { Entitlement } from '../../commerce/models.ts';
import type { UsageGroupDay, UsageReportDay } from '../../flows/usage-reads.ts';
import { ENTITLEMENT, type EntitlementWithTerms } from './entitlement.ts';
import type { CanonicalRecord } from './record.ts';

export type EntitlementUsage = EntitlementWithTerms & { groupDays: UsageGroupDay[]; reportDays: UsageReportDay[] };

export type CanonicalUsageSummary = {
  entitlementId: string;
  usageAmount: number;
  burnDownPercent?: number;
  lastUsageDate?: string;
  failedReports: number;
};

const round2 = (value: number) => Math.round(value * 100) / 100;

export const USAGE_SUMMARY: CanonicalRecord<Entitlement, EntitlementUsage | undefined, CanonicalUsageSummary> = {
  entity: 'usage-summary',
  id: (record) => record.entitlementId,
  describe: {
    entitlementId: 'entitlement.id',
    usageAmount: 'the sum of usageRecordReport/aggregate amount over every day of the entitlement',
    burnDownPercent: "usage amount / the entitlement's commit (current term commitAmount, else info.commitAmount) x 100, two decimals; empty without a commit",
    lastUsageDate: 'the latest date with a quantity above 0 in usageRecordGroup/aggregate',
    failedReports: 'the sum of usageRecordGroup/aggregate failedCount: groups in REPORT_FAILED',
  },
  compute(entitlement, usage) {
    const commit = ENTITLEMENT.compute(entitlement, usage && { terms: usage.terms });
    const committed = commit.ok ? commit.value.commitAmount : undefined;
    const usageAmount = round2((usage?.reportDays ?? []).reduce((sum, day) => sum + day.amount, 0));
    const used = (usage?.groupDays ?? []).filter((day) => day.quantity > 0).map((day) => day.date).sort();
    return {
      ok: true,
      value: {
        entitlementId: entitlement.id,
        usageAmount,
        ...(committed && committed > 0 && { burnDownPercent: round2((usageAmount / committed) * 100) }),
        ...(used.length && { lastUsageDate: used.at(-1) }),
        failedReports: (usage?.groupDays ?? []).reduce((sum, day) => sum + day.failedCount, 0),
      },
    };
  },
};
