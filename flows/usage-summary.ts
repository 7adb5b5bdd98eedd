// An entitlement's usage so far -> four fields on its CRM entitlement record (issue #25 section 4): the
// billed usage amount, the commit burned down by it, the last day with usage, the reports that failed.
// A summary changes whenever any of its days does, while the entitlement itself may not (its window
// would not see it), so the flow is `due`: its first run reads every day row of the group aggregate once,
// later runs the day rows changed since the last run (`since`, the look-back included); then, per
// entitlement those rows name, the entitlement, its terms and all its days. An unchanged summary maps to
// the same record and writes nothing (its content hash). A commit changed while no day of the
// entitlement did shows in the burn-down with the next change of a day (a metered entitlement's usage
// moves daily).
import pLimit from 'p-limit';
import { q, toDate, type CommerceClient } from '../commerce/index.ts';
import type { Entitlement, EntitlementTerm } from '../commerce/models.ts';
import type { EntitlementUsage } from '../mappings/canonical/usage-summary.ts';
import { usageSummaryToDynamicsEntitlement } from '../mappings/dynamics/usage-summary.ts';
import { usageSummaryToHubSpotEntitlement } from '../mappings/hubspot/usage-summary.ts';
import { usageSummaryToMarketplaceEntitlement } from '../mappings/salesforce/usage-summary.ts';
import type { CommerceToCrmFlow, RelatedRead, RelatedReader } from './types.ts';
import { reportDays, usageGroupDayPages, type UsageGroupDay } from './usage-reads.ts';

/** The entitlements with usage (changed since the last run, when there was one): their group days once, then each entitlement by id. */
async function meteredEntitlements(commerce: CommerceClient, orgId: string, context: { since?: Date; pageSize: number; signal?: AbortSignal }) {
  const ids = new Set<string>();
  const read: { records: Entitlement[]; rejected: { raw: unknown; error: any }[] } = { records: [], rejected: [] };
  const changed = context.since ? q.ge('lastUpdateTime', context.since).expression : undefined;
  for await (const page of usageGroupDayPages(commerce, orgId, { pageSize: 1000, q: changed, s: 'entitlementID,id' })) {
    context.signal?.throwIfAborted();
    for (const day of page.records) ids.add(day.entitlementID);
    read.rejected.push(...page.rejected);
  }
  const limit = pLimit(8);
  const found = await Promise.all([...ids].map((id) => limit(async () => {
    try {
      return await commerce.entitlements.get(orgId, id);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined; // usage of an entitlement the service no longer has
      throw error;
    }
  })));
  read.records = found.filter((entitlement): entitlement is Entitlement => Boolean(entitlement));
  return read;
}

/** Per entitlement: its terms (for the commit) and every day of its usage, groups and reports. */
export const readEntitlementUsage: RelatedReader = async (commerce, orgId, entitlements: Entitlement[], options) => {
  const limit = pLimit(options.concurrency ?? 8);
  const read: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
  await Promise.all(
    entitlements.map((entitlement) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        const problems: string[] = [];
        const terms: EntitlementTerm[] = [];
        for await (const page of commerce.entitlements.terms(orgId, entitlement.id)) {
          terms.push(...page.records);
          problems.push(...page.rejected.map((row) => row.error.message));
        }
        const groupDays: UsageGroupDay[] = [];
        for await (const page of usageGroupDayPages(commerce, orgId, { pageSize: 1000, entitlementId: entitlement.id })) {
          groupDays.push(...page.records);
          problems.push(...page.rejected.map((row) => row.error.message));
        }
        const reported = await reportDays(commerce, orgId, entitlement.id, '0000-01-01', '9999-12-31');
        problems.push(...reported.problems);
        const usage: EntitlementUsage = { terms, groupDays, reportDays: [...reported.days.values()] };
        read.byRecord.set(entitlement.id, usage);
        // A summary made from part of its days would be wrong: it waits as a dead letter.
        if (problems.length) read.unreadable.set(entitlement.id, problems);
        const times = [...groupDays, ...usage.reportDays].map((day) => toDate(day.lastUpdateTime)?.getTime() ?? 0);
        if (times.length) read.latest.set(entitlement.id, new Date(Math.max(...times)));
      }),
    ),
  );
  return read;
};

export const usageSummaryFlow = {
  name: 'usage-summary',
  direction: 'commerce-to-crm',
  source: {
    window: (c, org, query) => c.entitlements.query(org, query),
    byId: (c, org, id) => c.entitlements.get(org, id),
  },
  events: [],
  parents: ['entitlement'],
  due: meteredEntitlements,
  related: readEntitlementUsage,
  mappings: { salesforce: usageSummaryToMarketplaceEntitlement, hubspot: usageSummaryToHubSpotEntitlement, dynamics: usageSummaryToDynamicsEntitlement },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'entitlement' | 'usage-summary'>;
