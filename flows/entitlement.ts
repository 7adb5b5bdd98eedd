// Entitlements (with their terms) -> CRM entitlement records, on the buyer's account and the offer's
// opportunity. The terms are read per entitlement (the contract has no bulk terms read); a term has its
// own lastUpdateTime (§2.2) and may change while its entitlement's does not (A12).
import { entitlementToDynamicsEntitlement } from '../mappings/dynamics/entitlement.ts';
import { entitlementToHubSpotEntitlement } from '../mappings/hubspot/entitlement.ts';
import pLimit from 'p-limit';
import { toDate } from '../commerce/index.ts';
import type { EntitlementTerm } from '../commerce/models.ts';
import { entitlementToMarketplaceEntitlement } from '../mappings/salesforce/entitlement.ts';
import type { CommerceToCrmFlow, RelatedRead, RelatedReader } from './types.ts';

/** Terms of each entitlement of a batch, a few requests at a time; an unreadable term row holds its entitlement back. */
export const readEntitlementTerms: RelatedReader = async (commerce, orgId, entitlements, options) => {
  const limit = pLimit(options.concurrency ?? 8);
  const read: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
  let finished = 0;
  await Promise.all(
    entitlements.map((entitlement: { id: string }) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        const terms: EntitlementTerm[] = [];
        const problems: string[] = [];
        for await (const page of commerce.entitlements.terms(orgId, entitlement.id)) {
          terms.push(...page.records);
          problems.push(...page.rejected.map((row) => row.error.message));
        }
        read.byRecord.set(entitlement.id, { terms });
        if (problems.length > 0) read.unreadable.set(entitlement.id, problems);
        const times = terms.map((term) => toDate(term.lastUpdateTime)?.getTime() ?? 0);
        if (times.length > 0) read.latest.set(entitlement.id, new Date(Math.max(...times)));
        finished += 1;
        options.onProgress?.({ entity: 'entitlement', phase: 'terms', read: finished, of: entitlements.length });
      }),
    ),
  );
  return read;
};

export const entitlementFlow = {
  name: 'entitlement',
  direction: 'commerce-to-crm',
  source: {
    window: (c, org, q) => c.entitlements.query(org, q),
    byId: (c, org, id) => c.entitlements.get(org, id),
    updateMetaInfo: (c, org, id, patch) => c.entitlements.updateMetaInfo(org, id, patch),
  },
  events: ['ENTITLEMENT'],
  parents: ['buyer', 'offer'],
  related: readEntitlementTerms,
  mappings: { salesforce: entitlementToMarketplaceEntitlement, hubspot: entitlementToHubSpotEntitlement, dynamics: entitlementToDynamicsEntitlement },
  writeBack: {
    salesforce: async ({ crmId, accountId }, recordUrl) => ({ crmAEntitlementURL: await recordUrl(crmId), ...(accountId && { crmAAccountId: accountId }) }),
  },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer' | 'offer' | 'entitlement'>;
