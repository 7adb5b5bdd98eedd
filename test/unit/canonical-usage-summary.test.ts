// The canonical usage summary of an entitlement (mappings/canonical/usage-summary.ts), expected values
// written by hand: the billed usage amount, the commit burned down by it, the last day with usage, the
// reports that failed; nothing invented where there is no commit or no usage; each CRM's table.
import { describe, expect, it } from 'vitest';
import type { Entitlement } from '../../commerce/models.ts';
import type { UsageGroupDay, UsageReportDay } from '../../flows/usage-reads.ts';
import { USAGE_SUMMARY } from '../../mappings/canonical/usage-summary.ts';
import { usageSummaryToDynamicsEntitlement } from '../../mappings/dynamics/usage-summary.ts';
import { usageSummaryToHubSpotEntitlement, usageSummaryToLineItem } from '../../mappings/hubspot/usage-summary.ts';
import { usageSummaryToMarketplaceEntitlement } from '../../mappings/salesforce/usage-summary.ts';

const entitlement = { id: 'ent-7', name: 'Analytics', status: 'ACTIVE', partner: 'cloudA', entitlementTermID: 'term-7', info: { commitAmount: 999 }, lastUpdateTime: '2026-03-01T00:00:00Z' } as unknown as Entitlement;
const term = { id: 'term-7', entitlementID: 'ent-7', commitAmount: 400, usedCommitAmount: 0, lastUpdateTime: '2026-03-01T00:00:00Z' } as any;
const group = (date: string, quantity: number, failedCount = 0): UsageGroupDay => ({ id: `ent-7|api_calls|${date}`, entitlementID: 'ent-7', dimensionKey: 'api_calls', date, groupCount: 1 + failedCount, quantity, pendingQuantity: 0, failedCount, failedQuantity: failedCount * 5, lastUpdateTime: `${date}T12:00:00Z` });
const report = (date: string, amount: number): UsageReportDay => ({ id: `ent-7|api_calls|${date}`, entitlementID: 'ent-7', dimensionKey: 'api_calls', date, reportCount: 1, quantity: 10, amount, currency: 'USD', lastUpdateTime: `${date}T13:00:00Z` });

const usage = {
  terms: [term],
  // 03-05 has a day row without quantity: not a day of usage. 03-04 has one group in REPORT_FAILED.
  groupDays: [group('2026-03-02', 10), group('2026-03-04', 10, 1), group('2026-03-03', 10), group('2026-03-05', 0)],
  reportDays: [report('2026-03-02', 25.5), report('2026-03-03', 24.5), report('2026-03-04', 50.01)],
};

describe('canonical usage summary', () => {
  it('billed usage 100.01 of a 400 commit (the current term, not info) is 25% burnt; the last day with a quantity; one failed report', () => {
    expect(USAGE_SUMMARY.compute(entitlement, usage)).toEqual({ ok: true, value: { entitlementId: 'ent-7', usageAmount: 100.01, burnDownPercent: 25, lastUsageDate: '2026-03-04', failedReports: 1 } });
  });

  it('no commit: no burn-down; no usage: no last date, nothing billed, none failed', () => {
    const open = { ...entitlement, info: {}, entitlementTermID: 'none' } as unknown as Entitlement;
    expect(USAGE_SUMMARY.compute(open, { terms: [], groupDays: [], reportDays: [] })).toEqual({ ok: true, value: { entitlementId: 'ent-7', usageAmount: 0, failedReports: 0 } });
  });

  it('past the commit the burn-down goes above 100', () => {
    const value = USAGE_SUMMARY.compute(entitlement, { ...usage, reportDays: [report('2026-03-02', 500)] });
    expect(value.ok && value.value.burnDownPercent).toBe(125);
  });
});

describe('each CRM takes the summary onto its entitlement record', () => {
  const cases = [
    ['Salesforce', usageSummaryToMarketplaceEntitlement, 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c', { Usage_Amount__c: 100.01, Commit_Burn_Down__c: 25, Last_Usage_Date__c: '2026-03-04', Failed_Usage_Reports__c: 1 }],
    ['HubSpot', usageSummaryToHubSpotEntitlement, 'marketplace_entitlement', 'entitlement_id', { usage_amount: 100.01, commit_burn_down_percent: 25, last_usage_date: '2026-03-04', failed_usage_reports: 1 }],
    ['HubSpot without custom objects (the line item fallback)', usageSummaryToLineItem, 'line_items', 'commerce_entitlement_id', { usage_amount: 100.01, commit_burn_down_percent: 25, last_usage_date: '2026-03-04', failed_usage_reports: 1 }],
    ['Dynamics', usageSummaryToDynamicsEntitlement, 'ccs_marketplaceentitlement', 'ccs_entitlementid', { ccs_usageamount: 100.01, ccs_commitburndown: 25, ccs_lastusagedate: '2026-03-04', ccs_failedusagereports: 1 }],
  ] as const;
  it.each(cases)('%s', (_crm, mapping, object, externalIdField, fields) => {
    expect(mapping.map(entitlement, usage)).toEqual({ ok: true, record: { object, externalIdField, externalId: 'ent-7', fields } });
  });
});
