// The commerce sandbox's usage metering (issue #25 section 4; A16): the first ACTIVE entitlement of
// each marketplace A-F has 30 days of three dimensions, each reported (one report with its amount),
// one storage_gb group on the 11th day in REPORT_FAILED; the daily aggregates of groups and reports by
// entitlement|dimension|date as query pages; change kind `usage` adds a group to one day; a new day's
// groups come with the change driver's timer once the day turns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';
import { waitFor } from '../support/start-process.ts';

const clock = manualClock('2026-04-01T08:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let orgId: string;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 5, entitlements: 120, now: clock.now, changesPerSecond: 0 });
  probe = probeSandbox(sandbox);
  orgId = sandbox.organizationId;
});
afterAll(() => sandbox.stop());

async function all(path: string, query: Record<string, string | number> = {}) {
  const response = await probe.api(`/org/${orgId}/${path}`, { query: { page_size: 1000, ...query } });
  expect(response.status, response.text).toBe(200);
  return response.json.data as any[];
}

describe('commerce sandbox: usage record groups and reports, aggregated by day', () => {
  it('meters the first ACTIVE entitlement of each marketplace: 30 days before today, 3 dimensions', async () => {
    const entitlements = await probe.records('entitlements');
    const metered = ['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF'].map((partner) => entitlements.filter((e) => e.partner === partner && e.status === 'ACTIVE').sort((a, b) => (a.id < b.id ? -1 : 1))[0].id);
    const days = await all('usageRecordGroup/aggregate');
    expect(days).toHaveLength(6 * 30 * 3);
    expect(new Set(days.map((day) => day.entitlementID))).toEqual(new Set(metered));
    const dates = [...new Set(days.map((day) => day.date))].sort();
    expect(dates[0]).toBe('2026-03-02');
    expect(dates.at(-1)).toBe('2026-03-31');
    expect(new Set(days.map((day) => day.dimensionKey))).toEqual(new Set(['api_calls', 'storage_gb', 'compute_hours']));
  });

  it('reports each day at the unit price; the 11th day has one storage_gb group in REPORT_FAILED (25 units) that no report holds', async () => {
    const [entitlementId] = [...new Set((await all('usageRecordGroup/aggregate')).map((day) => day.entitlementID))];
    const groups = await all('usageRecordGroup/aggregate', { entitlementId });
    const reports = new Map((await all('usageRecordReport/aggregate', { entitlementId })).map((day) => [day.id, day]));
    expect(groups).toHaveLength(90);
    const prices: Record<string, number> = { api_calls: 0.002, storage_gb: 0.1, compute_hours: 0.5 };
    for (const day of groups) {
      expect(day.id).toBe(`${entitlementId}|${day.dimensionKey}|${day.date}`);
      const report = reports.get(day.id);
      const failed = day.date === '2026-03-12' && day.dimensionKey === 'storage_gb';
      expect(day.pendingQuantity).toBe(0);
      expect([day.failedCount, day.failedQuantity]).toEqual(failed ? [1, 25] : [0, 0]);
      expect(report.quantity).toBe(day.quantity - (failed ? 25 : 0));
      expect(report.amount).toBeCloseTo(report.quantity * prices[day.dimensionKey]!, 2);
    }
  });

  it('narrows by dates and pages with q and s on lastUpdateTime, like a query endpoint', async () => {
    const oneDay = await all('usageRecordGroup/aggregate', { startDate: '2026-03-05', endDate: '2026-03-05' });
    expect(oneDay).toHaveLength(18);
    const later = await all('usageRecordGroup/aggregate', { q: '(gt lastUpdateTime "2026-03-30T00:00:00.000Z")', s: 'lastUpdateTime,id' });
    // The groups of 03-29 were reported on 03-30 at 01:00, those of 03-30 on 03-31, those of 03-31 on 04-01.
    expect(new Set(later.map((day) => day.date))).toEqual(new Set(['2026-03-29', '2026-03-30', '2026-03-31']));
  });

  it('change kind usage adds one group, not yet reported, to one day: only that day moves', async () => {
    const before = new Map((await all('usageRecordGroup/aggregate')).map((day) => [day.id, day]));
    const reportsBefore = await all('usageRecordReport/aggregate');
    const response = await probe.control('POST', '/changes', { count: 1, kinds: ['usage'] });
    expect(response.status, response.text).toBe(200);
    const [change] = response.json.changes;
    expect(change.entityType).toBe('USAGE');
    const after = await all('usageRecordGroup/aggregate');
    const moved = after.filter((day) => JSON.stringify(day) !== JSON.stringify(before.get(day.id)));
    expect(moved.map((day) => day.id)).toEqual([change.id]);
    expect(moved[0].pendingQuantity).toBeGreaterThan(0);
    expect(moved[0].quantity).toBe(before.get(change.id).quantity + moved[0].pendingQuantity);
    expect(moved[0].lastUpdateTime).toBe(clock.iso());
    expect(await all('usageRecordReport/aggregate')).toEqual(reportsBefore);
  });

  it("once the day turns, the driver's timer makes the day's groups (not reported) and reports the day before's", async () => {
    clock.advance(86_400);
    probe.forgetToken(); // a day later the token has expired
    await probe.control('POST', '/changes/rate', { changesPerSecond: 0.001 });
    try {
      await waitFor("the new day's usage", async () => (await all('usageRecordGroup/aggregate', { startDate: '2026-04-02' })).length === 18, 10_000, 50);
    } finally {
      await probe.control('POST', '/changes/rate', { changesPerSecond: 0 });
    }
    const today = await all('usageRecordGroup/aggregate', { startDate: '2026-04-02' });
    expect(today.every((day) => day.pendingQuantity === day.quantity && day.quantity > 0)).toBe(true);
    const yesterday = await all('usageRecordGroup/aggregate', { startDate: '2026-04-01', endDate: '2026-04-01' });
    expect(yesterday.every((day) => day.pendingQuantity === 0)).toBe(true);
    expect(await all('usageRecordReport/aggregate', { startDate: '2026-04-01', endDate: '2026-04-01' })).toHaveLength(18);
  });
});

describe('commerce sandbox: usage history made just after midnight UTC', () => {
  // A service never stamps a change later than now. The history's reports were stamped 01:00 of the
  // day after their usage; a sandbox started between 00:00 and 01:00 UTC stamped yesterday's reports
  // in the future, so a sync (whose window ends at the run's start) left yesterday out: CI at 00:09 UTC
  // wrote 522 of 540 days.
  it('stamps no group, report or day aggregate later than the moment the ledger is made', async () => {
    const early = manualClock('2026-11-27T00:09:48.000Z');
    const night = await startCommerceSandbox({ seed: 5, entitlements: 120, now: early.now, changesPerSecond: 0 });
    try {
      const nightProbe = probeSandbox(night);
      const read = async (path: string) => {
        const response = await nightProbe.api(`/org/${night.organizationId}/${path}`, { query: { page_size: 1000 } });
        expect(response.status, response.text).toBe(200);
        return response.json.data as any[];
      };
      const groupDays = await read('usageRecordGroup/aggregate');
      const reportDays = await read('usageRecordReport/aggregate');
      expect(groupDays).toHaveLength(6 * 30 * 3);
      expect(reportDays).toHaveLength(6 * 30 * 3);
      const latest = (rows: any[]) => rows.map((row) => row.lastUpdateTime).sort().at(-1);
      expect(latest(groupDays) <= '2026-11-27T00:09:48.000Z', latest(groupDays)).toBe(true);
      expect(latest(reportDays) <= '2026-11-27T00:09:48.000Z', latest(reportDays)).toBe(true);
      // Nor any other record the sandbox generates.
      for (const kind of ['products', 'buyers', 'contacts', 'offers', 'entitlements', 'entitlementTerms', 'referrals']) {
        const rows = await nightProbe.records(kind);
        const stamps = rows.map((row) => row.lastUpdateTime).filter((stamp) => typeof stamp === 'string').sort();
        expect(stamps.length, kind).toBeGreaterThan(0);
        expect(stamps.at(-1)! <= '2026-11-27T00:09:48.000Z', `${kind}: ${stamps.at(-1)}`).toBe(true);
      }
      // Yesterday (the 26th) is in the history, reported like every other day.
      expect(groupDays.filter((day) => day.date === '2026-11-26' && day.pendingQuantity === 0)).toHaveLength(18);
    } finally {
      await night.stop();
    }
  });
});
