// Days of usage -> CRM usage records (issue #25 section 4), one per entitlement, dimension and date,
// under the entitlement's CRM record. The window is the daily aggregate of usage record groups (every
// group whatever its state, so a new group, a report or a failure moves its day's lastUpdateTime: A16).
// What the marketplace was billed comes from the daily aggregate of reports, read with each page of days
// for the dates the page spans (one read, not one per day: the sync reads a flow's related records one
// record at a time, and the window runs in time order, so a page holds a few dates of many entitlements).
// A day unchanged since it was written maps to the same record and writes nothing.
import { CommerceRecordError, type CommerceClient, type Page } from '../commerce/index.ts';
import { usageToDynamicsUsage } from '../mappings/dynamics/usage.ts';
import { usageToHubSpotUsage } from '../mappings/hubspot/usage.ts';
import { usageToMarketplaceUsage } from '../mappings/salesforce/usage.ts';
import type { CommerceToCrmFlow } from './types.ts';
import { dayKeyParts, reportDays, usageGroupDayPages, type UsageDay, type UsageGroupDay } from './usage-reads.ts';

/** Each day of a page with its reports (read for the page's dates); a page whose reports cannot be read holds its days back. */
async function withReports(commerce: CommerceClient, orgId: string, page: Page<UsageGroupDay>, entitlementId?: string): Promise<Page<UsageDay>> {
  if (page.records.length === 0) return page;
  const dates = page.records.map((day) => day.date).sort();
  const reported = await reportDays(commerce, orgId, entitlementId, dates[0]!, dates.at(-1)!);
  if (reported.problems.length) {
    // A day written without its billed amount would be wrong: its reports' rows are unusable, so it waits.
    const reason = `its usage record reports cannot be used: ${reported.problems.join('; ')}`;
    return { ...page, records: [], rejected: [...page.rejected, ...page.records.map((day) => ({ raw: day, error: new CommerceRecordError('usage day', day.id, [reason]) }))] };
  }
  return { ...page, records: page.records.map((day) => ({ ...day, ...(reported.days.has(day.id) && { reported: reported.days.get(day.id) }) })) };
}

async function* daysWithReports(commerce: CommerceClient, orgId: string, query: Parameters<typeof usageGroupDayPages>[2]): AsyncGenerator<Page<UsageDay>> {
  for await (const page of usageGroupDayPages(commerce, orgId, query)) yield await withReports(commerce, orgId, page, query.entitlementId);
}

/** A day by its key: the group aggregate of its entitlement on that date, with its reports (a 404 when the service has none). */
async function dayById(commerce: CommerceClient, orgId: string, id: string): Promise<UsageDay> {
  const parts = dayKeyParts(id);
  if (parts) {
    for await (const page of daysWithReports(commerce, orgId, { pageSize: 1000, entitlementId: parts.entitlementId, startDate: parts.date, endDate: parts.date })) {
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
    window: (commerce, orgId, query) => daysWithReports(commerce, orgId, query),
    byId: dayById,
  },
  // Usage has no notification events: days are found by the window only.
  events: [],
  parents: ['entitlement'],
  mappings: { salesforce: usageToMarketplaceUsage, hubspot: usageToHubSpotUsage, dynamics: usageToDynamicsUsage },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'entitlement' | 'usage'>;
