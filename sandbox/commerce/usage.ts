// Usage metering in the sandbox (issue #25 section 4; assumptions A16): usage record groups the seller
// reports, the reports the service made of them for the marketplace, and their daily aggregates by
// entitlement, dimension key and date. Kept beside the store (a fresh store on reset: a fresh ledger),
// made on first use so the generated data set and the seeded draws of the change driver stay as they were.
//   - The metered entitlements: the first ACTIVE entitlement of each marketplace A-F, in id order, and
//     every 100th ACTIVE entitlement beyond them (the benchmark's volumes: 1% of the active ones).
//   - Their history: the 30 days before the day the ledger is made, three dimensions, one group per
//     day and dimension, each reported (one report with its amount); on the 11th day one more group of
//     storage_gb failed to report (REPORT_FAILED), so a seller sees revenue at risk.
//   - Each new day (the change driver's timer, while it runs): the day's groups, CREATED (not yet
//     reported); the day before's CREATED groups are reported.
//   - On demand (change kind `usage`): one more group on one day of the history.
// Quantities come from a hash of (entitlement, dimension, date), never from the seeded draws.
import { createHash } from 'node:crypto';
import type { SandboxState } from './state.ts';
import type { Store } from './store.ts';

export const USAGE_DIMENSIONS = ['api_calls', 'storage_gb', 'compute_hours'] as const;
/** The marketplace's price per unit of each dimension (a report's amount is quantity x price). */
export const USAGE_UNIT_PRICES: Record<string, number> = { api_calls: 0.002, storage_gb: 0.1, compute_hours: 0.5 };
export const USAGE_HISTORY_DAYS = 30;
/** The day of the history (0 = oldest) on which one storage_gb group failed to report. */
export const FAILED_DAY_INDEX = 10;

export type UsageGroupStatus = 'CREATED' | 'REPORTED' | 'REPORT_FAILED';

export type UsageRecordGroup = {
  id: string;
  organizationID: string;
  entitlementID: string;
  buyerID: string;
  partner: string;
  dimensionKey: string;
  /** The UTC day the usage belongs to (YYYY-MM-DD). */
  usageDate: string;
  quantity: number;
  status: UsageGroupStatus;
  creationTime: string;
  lastUpdateTime: string;
};

export type UsageRecordReport = {
  id: string;
  organizationID: string;
  entitlementID: string;
  usageRecordGroupID: string;
  dimensionKey: string;
  usageDate: string;
  quantity: number;
  amount: number;
  currency: string;
  creationTime: string;
  lastUpdateTime: string;
};

type Ledger = { entitlementIds: string[]; groups: UsageRecordGroup[]; reports: UsageRecordReport[]; through: string; sequence: number };

const ledgers = new WeakMap<Store, Ledger>();
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const round2 = (value: number) => Math.round(value * 100) / 100;

/** A stable whole quantity for a day and dimension (10 to 1,009 units). */
function quantityOf(entitlementId: string, dimension: string, date: string): number {
  return 10 + (createHash('sha256').update(`${entitlementId}|${dimension}|${date}`).digest().readUInt32BE(0) % 1000);
}

/** The ledger of this store, made on first use. */
export function usageLedger(state: SandboxState): Ledger {
  let ledger = ledgers.get(state.store);
  if (ledger) return ledger;
  const entitlementIds: string[] = [];
  const seen = new Set<string>();
  let active = 0;
  for (const entitlement of state.store.entitlements.rows) {
    if (typeof entitlement.id !== 'string' || state.store.injected.has(entitlement) || entitlement.status !== 'ACTIVE') continue;
    active += 1;
    if (seen.has(entitlement.partner) && active % 100 !== 0) continue;
    seen.add(entitlement.partner);
    entitlementIds.push(entitlement.id);
  }
  const today = Date.parse(`${dayOf(state.nowMs())}T00:00:00.000Z`);
  ledger = { entitlementIds, groups: [], reports: [], through: dayOf(today - DAY_MS), sequence: 0 };
  ledgers.set(state.store, ledger);
  for (let index = 0; index < USAGE_HISTORY_DAYS; index++) {
    const date = dayOf(today - (USAGE_HISTORY_DAYS - index) * DAY_MS);
    // Times of the history: noon of the day for the group, the next day's 01:00 for its report, but
    // never later than the start of today (a service stamps no change in the future: before 01:00 UTC,
    // yesterday's reports would otherwise lie ahead of every sync window).
    const made = `${date}T12:00:00.000Z`;
    const reported = new Date(Math.min(Date.parse(made) + 13 * 3_600_000, today)).toISOString();
    for (const entitlementId of entitlementIds) {
      for (const dimension of USAGE_DIMENSIONS) {
        const group = addGroup(state, ledger, entitlementId, dimension, date, quantityOf(entitlementId, dimension, date), made);
        report(state, ledger, group, reported);
      }
      if (index === FAILED_DAY_INDEX) {
        const failed = addGroup(state, ledger, entitlementId, 'storage_gb', date, 25, made);
        failed.status = 'REPORT_FAILED';
        failed.lastUpdateTime = reported;
      }
    }
  }
  return ledger;
}

function addGroup(state: SandboxState, ledger: Ledger, entitlementId: string, dimension: string, date: string, quantity: number, time: string): UsageRecordGroup {
  const entitlement = state.store.entitlements.get(entitlementId)!;
  ledger.sequence += 1;
  const group: UsageRecordGroup = {
    id: `urg-${String(ledger.sequence).padStart(8, '0')}`,
    organizationID: state.settings.organizationId,
    entitlementID: entitlementId,
    buyerID: entitlement.buyerID,
    partner: entitlement.partner,
    dimensionKey: dimension,
    usageDate: date,
    quantity,
    status: 'CREATED',
    creationTime: time,
    lastUpdateTime: time,
  };
  ledger.groups.push(group);
  return group;
}

function report(state: SandboxState, ledger: Ledger, group: UsageRecordGroup, time: string): void {
  const entitlement = state.store.entitlements.get(group.entitlementID)!;
  group.status = 'REPORTED';
  group.lastUpdateTime = time;
  ledger.reports.push({
    id: `urr-${group.id.slice(4)}`,
    organizationID: group.organizationID,
    entitlementID: group.entitlementID,
    usageRecordGroupID: group.id,
    dimensionKey: group.dimensionKey,
    usageDate: group.usageDate,
    quantity: group.quantity,
    amount: round2(group.quantity * (USAGE_UNIT_PRICES[group.dimensionKey] ?? 0)),
    currency: typeof entitlement.info.currency === 'string' ? entitlement.info.currency : 'USD',
    creationTime: time,
    lastUpdateTime: time,
  });
}

/**
 * The change driver's day: for each day after the last one made, up to today, the groups of the day
 * before are reported and the day's own groups are made (CREATED). Nothing when the day has not turned.
 */
export function advanceUsageDays(state: SandboxState): number {
  const ledger = usageLedger(state);
  const today = dayOf(state.nowMs());
  let added = 0;
  while (ledger.through < today) {
    const date = dayOf(Date.parse(`${ledger.through}T00:00:00.000Z`) + DAY_MS);
    const now = state.nowIso();
    for (const group of ledger.groups) if (group.status === 'CREATED' && group.usageDate < date) report(state, ledger, group, now);
    for (const entitlementId of ledger.entitlementIds) {
      for (const dimension of USAGE_DIMENSIONS) addGroup(state, ledger, entitlementId, dimension, date, quantityOf(entitlementId, dimension, date), now);
      added += USAGE_DIMENSIONS.length;
    }
    ledger.through = date;
  }
  return added;
}

/** Change kind `usage`: one more group (CREATED, not yet reported) on one day of one metered entitlement. */
export function addUsageToADay(state: SandboxState): { id: string; summary: string; lastUpdateTime: string } | undefined {
  const ledger = usageLedger(state);
  const days = ledger.groups.filter((group) => group.status === 'REPORTED');
  if (days.length === 0) return undefined;
  const picked = days[Math.floor(state.random.next() * days.length)]!;
  const quantity = 1 + Math.floor(state.random.next() * 100);
  const group = addGroup(state, ledger, picked.entitlementID, picked.dimensionKey, picked.usageDate, quantity, state.nowIso());
  return { id: dayKey(group), summary: `${quantity} more ${group.dimensionKey} on ${group.usageDate} (group ${group.id}, not yet reported)`, lastUpdateTime: group.lastUpdateTime };
}

/**
 * Change kind `usageReportFailed`: the marketplace refuses one group not yet reported (CREATED ->
 * REPORT_FAILED), as it does for a dimension it does not know or a day past its window.
 */
export function failAUsageReport(state: SandboxState): UsageRecordGroup | undefined {
  const waiting = usageLedger(state).groups.filter((group) => group.status === 'CREATED');
  if (waiting.length === 0) return undefined;
  const group = waiting[Math.floor(state.random.next() * waiting.length)]!;
  group.status = 'REPORT_FAILED';
  group.lastUpdateTime = state.nowIso();
  return group;
}

/** The id of a day's aggregate row: entitlement, dimension key and date (A16). */
export const dayKey = (row: { entitlementID: string; dimensionKey: string; usageDate: string }) => `${row.entitlementID}|${row.dimensionKey}|${row.usageDate}`;

export type GroupAggregateRow = {
  id: string;
  entitlementID: string;
  dimensionKey: string;
  date: string;
  groupCount: number;
  quantity: number;
  /** Groups not yet reported (CREATED). */
  pendingQuantity: number;
  failedCount: number;
  failedQuantity: number;
  lastUpdateTime: string;
};

export type ReportAggregateRow = { id: string; entitlementID: string; dimensionKey: string; date: string; reportCount: number; quantity: number; amount: number; currency: string; lastUpdateTime: string };

const later = (a: string, b: string) => (a > b ? a : b);

export function groupAggregate(state: SandboxState): GroupAggregateRow[] {
  const rows = new Map<string, GroupAggregateRow>();
  for (const group of usageLedger(state).groups) {
    const id = dayKey(group);
    const row = rows.get(id) ?? { id, entitlementID: group.entitlementID, dimensionKey: group.dimensionKey, date: group.usageDate, groupCount: 0, quantity: 0, pendingQuantity: 0, failedCount: 0, failedQuantity: 0, lastUpdateTime: group.lastUpdateTime };
    row.groupCount += 1;
    row.quantity += group.quantity;
    if (group.status === 'CREATED') row.pendingQuantity += group.quantity;
    if (group.status === 'REPORT_FAILED') {
      row.failedCount += 1;
      row.failedQuantity += group.quantity;
    }
    row.lastUpdateTime = later(row.lastUpdateTime, group.lastUpdateTime);
    rows.set(id, row);
  }
  return [...rows.values()];
}

export function reportAggregate(state: SandboxState): ReportAggregateRow[] {
  const rows = new Map<string, ReportAggregateRow>();
  for (const report of usageLedger(state).reports) {
    const id = dayKey(report);
    const row = rows.get(id) ?? { id, entitlementID: report.entitlementID, dimensionKey: report.dimensionKey, date: report.usageDate, reportCount: 0, quantity: 0, amount: 0, currency: report.currency, lastUpdateTime: report.lastUpdateTime };
    row.reportCount += 1;
    row.quantity += report.quantity;
    row.amount = round2(row.amount + report.amount);
    row.lastUpdateTime = later(row.lastUpdateTime, report.lastUpdateTime);
    rows.set(id, row);
  }
  return [...rows.values()];
}
