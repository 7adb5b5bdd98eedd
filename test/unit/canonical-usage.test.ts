// The canonical usage day (mappings/canonical/usage.ts), expected values written by hand: reported and
// not-yet-reported quantities add up, the amount is the reported one only (left out when nothing of the
// day was reported), failed reports are counted; and each CRM's table takes them as they are.
import { describe, expect, it } from 'vitest';
import { USAGE_DAY } from '../../mappings/canonical/usage.ts';
import { usageToDynamicsUsage } from '../../mappings/dynamics/usage.ts';
import { usageToHubSpotUsage } from '../../mappings/hubspot/usage.ts';
import { usageToMarketplaceUsage } from '../../mappings/salesforce/usage.ts';
import type { UsageGroupDay, UsageReportDay } from '../../flows/usage-reads.ts';

const groups = (over: Partial<UsageGroupDay> = {}): UsageGroupDay => ({
  id: 'ent-7|api_calls|2026-03-04',
  entitlementID: 'ent-7',
  dimensionKey: 'api_calls',
  date: '2026-03-04',
  groupCount: 3,
  quantity: 1500,
  pendingQuantity: 250,
  failedCount: 1,
  failedQuantity: 50,
  lastUpdateTime: '2026-03-05T01:00:00.000Z',
  ...over,
});
const reports: UsageReportDay = { id: 'ent-7|api_calls|2026-03-04', entitlementID: 'ent-7', dimensionKey: 'api_calls', date: '2026-03-04', reportCount: 1, quantity: 1200, amount: 2.4, currency: 'USD', lastUpdateTime: '2026-03-05T01:00:00.000Z' };

describe('canonical usage day', () => {
  it('adds the reported quantity and the groups not yet reported; the amount is what was reported; failed groups counted', () => {
    expect(USAGE_DAY.compute({ ...groups(), reported: reports }, undefined)).toEqual({
      ok: true,
      value: { key: 'ent-7|api_calls|2026-03-04', name: 'api_calls 2026-03-04', entitlementId: 'ent-7', dimension: 'api_calls', usageDate: '2026-03-04', quantity: 1450, amount: 2.4, failedReports: 1 },
    });
  });

  it('a day nothing of which is reported yet: its usage so far, no amount (never invented)', () => {
    const today = groups({ id: 'ent-7|storage_gb|2026-03-05', dimensionKey: 'storage_gb', date: '2026-03-05', groupCount: 1, quantity: 40.5, pendingQuantity: 40.5, failedCount: 0, failedQuantity: 0 });
    expect(USAGE_DAY.compute(today, undefined)).toEqual({
      ok: true,
      value: { key: 'ent-7|storage_gb|2026-03-05', name: 'storage_gb 2026-03-05', entitlementId: 'ent-7', dimension: 'storage_gb', usageDate: '2026-03-05', quantity: 40.5, failedReports: 0 },
    });
  });

  it('keeps fractional quantities exact to six places (no float dust that would change the content hash)', () => {
    const day = USAGE_DAY.compute({ ...groups({ pendingQuantity: 0.2 }), reported: { ...reports, quantity: 0.1 } }, undefined);
    expect(day.ok && day.value.quantity).toBe(0.3);
  });
});

describe('each CRM takes the usage day', () => {
  const cases = [
    ['Salesforce', usageToMarketplaceUsage, 'Marketplace_Usage__c', 'Commerce_Usage_Key__c',
      { Name: 'api_calls 2026-03-04', Entitlement__r: { Commerce_Entitlement_Id__c: 'ent-7' }, Dimension__c: 'api_calls', Usage_Date__c: '2026-03-04', Quantity__c: 1450, Amount__c: 2.4, Failed_Reports__c: 1 }],
    ['HubSpot', usageToHubSpotUsage, 'marketplace_usage', 'usage_key',
      { usage_name: 'api_calls 2026-03-04', marketplace_entitlement: { entitlement_id: 'ent-7' }, dimension: 'api_calls', usage_date: '2026-03-04', quantity: 1450, amount: 2.4, failed_reports: 1 }],
    ['Dynamics', usageToDynamicsUsage, 'ccs_marketplaceusage', 'ccs_usagekey',
      { ccs_name: 'api_calls 2026-03-04', ccs_marketplaceentitlementid: { ccs_entitlementid: 'ent-7' }, ccs_dimension: 'api_calls', ccs_usagedate: '2026-03-04', ccs_quantity: 1450, ccs_amount: 2.4, ccs_failedreports: 1 }],
  ] as const;
  it.each(cases)('%s', (_crm, mapping, object, externalIdField, fields) => {
    expect(mapping.map({ ...groups(), reported: reports }, undefined)).toEqual({ ok: true, record: { object, externalIdField, externalId: 'ent-7|api_calls|2026-03-04', fields } });
  });
});
