// Days of usage -> CRM usage records (issue #25 section 4), one per entitlement, dimension and date,
// under the entitlement's CRM record. The window is the daily aggregate of usage record groups (every
// group whatever its state, so a new group, a report or a failure moves its day's lastUpdateTime: A16);
// what the marketplace was billed comes from the daily aggregate of reports, read for the batch's days
// per entitlement. A day unchanged since it was written maps to the same record and writes nothing.
import { toDate } from '../commerce/index.ts';
import { usageToDynamicsUsage } from '../mappings/dynamics/usage.ts';
import { usageToHubSpotUsage } from '../mappings/hubspot/usage.ts';
import { usageToMarketplaceUsage } from '../mappings/salesforce/usage.ts';
import type { CommerceToCrmFlow, RelatedRead, RelatedReader } from './types.ts';
import { dayKeyParts, reportDays, usageGroupDayPages, type UsageGroupDay } from './usage-reads.ts';

/**
 * The reports of the batch's days, read by the dates they span (every entitlement's reports of those
 * dates, a page of 1,000 rows at a time): the window runs in time order, so a batch holds a few dates of
 * many entitlements, and one read per entitlement would cost a request each (the benchmark's 10,000
 * entitlements: some 7,000 requests against a few dozen).
 */
export const readReportedDays: RelatedReader = async (commerce, orgId, days: UsageGroupDay[], options) => {
  const read: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
  if (days.length === 0) return read;
  options.signal?.throwIfAborted();
  const dates = days.map((day) => day.date).sort();
  const reported = await reportDays(commerce, orgId, undefined, dates[0]!, dates.at(-1)!);
  for (const day of days) {
    // A day whose reports cannot be read would be written without its billed amount: it waits.
    if (reported.problems.length) read.unreadable.set(day.id, reported.problems);
    const report = reported.days.get(day.id);
    if (!report) continue;
    read.byRecord.set(day.id, report);
    const time = toDate(report.lastUpdateTime);
    if (time) read.latest.set(day.id, time);
  }
  options.onProgress?.({ entity: 'usage', phase: 'reports', read: days.length, of: days.length });
  return read;
};

/** A day by its key: the group aggregate of its entitlement on that date (a 404 when the service has none). */
async function dayById(commerce: Parameters<RelatedReader>[0], orgId: string, id: string): Promise<UsageGroupDay> {
  const parts = dayKeyParts(id);
  if (parts) {
    for await (const page of usageGroupDayPages(commerce, orgId, { pageSize: 1000, entitlementId: parts.entitlementId, startDate: parts.date, endDate: parts.date })) {
      const day = page.records.find((row) => row.id === id);
      if (day) return day;
    }
  }
  throw Object.assign(new Error(`the commerce API has no usage for ${id} (entitlement|dimension|date)`), { status: 404 });
}

export const usageFlow = {
  name: 'usage',
  direction: 'commerce-to-crm',
  source: {
    window: (commerce, orgId, query) => usageGroupDayPages(commerce, orgId, query),
    byId: dayById,
  },
  // Usage has no notification events: days are found by the window only.
  events: [],
  parents: ['entitlement'],
  related: readReportedDays,
  mappings: { salesforce: usageToMarketplaceUsage, hubspot: usageToHubSpotUsage, dynamics: usageToDynamicsUsage },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'entitlement' | 'usage'>;
