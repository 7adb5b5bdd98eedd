// Private offers -> CRM opportunities (deals); the opportunity's id goes back onto the offer (§2.6).
import { offerToOpportunity as offerToDynamicsOpportunity } from '../mappings/dynamics/opportunity.ts';
import { offerToDeal } from '../mappings/hubspot/deal.ts';
import { offerToOpportunity } from '../mappings/salesforce/opportunity.ts';
import { dynamicsGuid } from '../mappings/values.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const offerFlow = {
  name: 'offer',
  direction: 'commerce-to-crm',
  source: {
    window: (c, org, q) => c.offers.query(org, q),
    byId: (c, org, id) => c.offers.get(org, id),
    updateMetaInfo: (c, org, id, patch) => c.offers.updateMetaInfo(org, id, patch),
  },
  events: ['OFFER'],
  parents: ['buyer'],
  mappings: { salesforce: offerToOpportunity, hubspot: offerToDeal, dynamics: offerToDynamicsOpportunity },
  writeBack: {
    salesforce: async ({ crmId, accountId }) => ({ crmAOpportunityId: crmId, ...(accountId && { crmAAccountId: accountId }) }),
    hubspot: async ({ crmId }) => ({ crmBDealId: crmId }),
    dynamics: async ({ crmId }) => ({ crmCOpportunityId: dynamicsGuid(crmId) }),
  },
  deletes: 'reflect-status',
  // A private offer drafted from a seller's own Opportunity (deal) updates that record, whose stage and
  // close date stay the seller's (each mapping's sellerKeeps): the stage sync keeps that stage in step with
  // the Opportunity's referral, and an offer status written over it would move the referral back.
  sellersRecordsFrom: 'opportunity-draft-offer',
} satisfies CommerceToCrmFlow<'buyer' | 'offer'>;
