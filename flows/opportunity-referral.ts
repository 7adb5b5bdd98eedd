// CRM opportunities shared for co-sell -> commerce co-sell referrals, exactly once (docs/commerce-api-assumptions.md A6, A13).
import { OPPORTUNITY_ID_FIELD } from '../commerce/crm-ids.ts';
import { q } from '../commerce/index.ts';
import { opportunityReferralSide as dynamicsOpportunityReferralSide, type DynamicsReferralRequest } from '../mappings/dynamics/opportunity-cosell.ts';
import { dealReferralSide, type HubSpotReferralRequest } from '../mappings/hubspot/deal-cosell.ts';
import { opportunityReferralSide, type ReferralRequest as SalesforceReferralRequest } from '../mappings/salesforce/opportunity-referral.ts';

/** What the referral create takes, with the CRM id field of the CRM that asks. */
export type ReferralRequest = SalesforceReferralRequest | HubSpotReferralRequest | DynamicsReferralRequest;
import { CommerceApiError } from '../commerce/errors.ts';
import type { Advanced, CrmToCommerceFlow, Made } from './crm-to-commerce.ts';
import { checkboxShareFilter, sharedFilter } from './narrowing.ts';

export const opportunityReferralFlow: CrmToCommerceFlow<ReferralRequest> = {
  name: 'opportunity-referral',
  direction: 'crm-to-commerce',
  enabled: (settings) => settings.cosell.enabled,
  // Each CRM reads only the Opportunities the share rule shares, where it can say so (flows/narrowing.ts).
  crm: {
    salesforce: { ...opportunityReferralSide, narrow: (settings) => sharedFilter(settings.cosell.share, 'StageName') },
    hubspot: { ...dealReferralSide, narrow: (settings) => checkboxShareFilter(settings.cosell.share) },
    dynamics: { ...dynamicsOpportunityReferralSide, narrow: (settings) => checkboxShareFilter(settings.cosell.share) },
  },
  target: {
    async validate(commerce, orgId, request) {
      const verdict = await commerce.referrals.validate(orgId, request);
      return verdict.valid ? [] : verdict.errors.map((error) => `${error.field}: ${error.message}`);
    },
    batch: 50,
    async create(commerce, orgId, requests) {
      const { results } = await commerce.referrals.batchCreate(orgId, requests);
      const byIndex = new Map(results.map((result) => [result.index, result]));
      return requests.map((_, index) => {
        const result = byIndex.get(index);
        return result?.referral ? { made: result.referral } : { refused: describeError(result?.error) };
      });
    },
    async findByCrmIds(commerce, orgId, crmIds, kind) {
      const field = OPPORTUNITY_ID_FIELD[kind];
      const found = new Map<string, Made>();
      for (let start = 0; start < crmIds.length; start += 50) {
        for await (const page of commerce.referrals.list(orgId, { q: q.in(field, crmIds.slice(start, start + 50)).expression, limit: 1000 })) {
          for (const referral of page.records) {
            const crmId = referral[field];
            if (crmId && !found.has(crmId)) found.set(crmId, referral);
          }
        }
      }
      return found;
    },
    // Submit (a draft whose second signal came) or submit again (rejected, then fixed by the seller), once
    // per change of the request: the caller sends only a request that changed since it was last sent.
    async advance(commerce, orgId, id, request) {
      if (request.status !== 'SUBMITTED') return { unchanged: true };
      return answered(id, async () => {
        const referral = await commerce.referrals.get(orgId, id);
        if (referral.direction === 'INBOUND' || !RESUBMITTABLE.has(String(referral.status))) return { unchanged: true };
        const verdict = await commerce.referrals.validate(orgId, request);
        if (!verdict.valid) return { refused: verdict.errors.map((error) => `${error.field}: ${error.message}`).join('\n') };
        return { made: await commerce.referrals.update(orgId, id, request) };
      });
    },
  },
};

/** A referral the seller may (re)submit: a draft, or one the partner rejected (A13). */
const RESUBMITTABLE = new Set(['DRAFT', 'REJECTED']);

/**
 * The commerce side's answer about this one referral is the record's (a refusal, or "not now"), never the
 * page's: only a failure worth retrying (5xx, 429, a timeout, the network, credentials) fails the page.
 */
async function answered(id: string, step: () => Promise<Advanced>): Promise<Advanced> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof CommerceApiError) || error.retryable || error.status === 401 || error.status === 408) throw error;
    // A 409 is "not now" (A13: the referral moved meanwhile): nothing is recorded, the next change of the record tries again.
    if (error.status === 409) return { later: error.message };
    if (error.status === 404) return { refused: `the referral ${id} made from this opportunity no longer exists on the marketplace, so it cannot be submitted again (${error.message})` };
    return { refused: `the marketplace refused to submit the referral again: ${error.message}` };
  }
}

function describeError(error: unknown): string {
  if (!error) return 'the marketplace refused the referral without saying why';
  if (typeof error === 'string') return error;
  const detail = error as { message?: string; errors?: { field?: string; message?: string }[] };
  if (detail.errors?.length) return detail.errors.map((item) => `${item.field ?? 'referral'}: ${item.message ?? ''}`).join('\n');
  return detail.message ?? JSON.stringify(error);
}
