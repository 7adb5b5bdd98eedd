// Inbound co-sell referrals (sent by a cloud partner, carrying no CRM opportunity yet) -> new CRM
// opportunities on their buyers' accounts; the opportunity's id goes back onto the referral
// (crmAOpportunityId, crmBDealId, ...), after which the referral is linked and this flow has nothing more to make.
// Runs with co-sell (workflows/cosell.ts), not as one of a connection's entities.
import { OPPORTUNITY_ID_FIELDS } from '../commerce/crm-ids.ts';
import { dynamicsGuid } from '../mappings/values.ts';
import { q } from '../commerce/index.ts';
import { inboundReferralToOpportunity as inboundReferralToDynamicsOpportunity } from '../mappings/dynamics/referral.ts';
import { inboundReferralToDeal } from '../mappings/hubspot/referral.ts';
import { inboundReferralToOpportunity } from '../mappings/salesforce/inbound-referral.ts';
import { referralFlow } from './referral.ts';
import { attachReferralContacts } from './referral-contacts.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const inboundReferralFlow = {
  name: 'inbound-referral',
  direction: 'commerce-to-crm',
  source: {
    ...referralFlow.source,
    updateMetaInfo: (c, org, id, patch) => c.referrals.update(org, id, patch),
    current: (referral) => referral,
    // Not yet linked to an opportunity in any CRM: a referral is worked in the seller's one CRM.
    filter: {
      q: q.and(q.eq('direction', 'INBOUND'), ...OPPORTUNITY_ID_FIELDS.map((field) => q.not(q.exists(field)))),
      accepts: (referral) => referral.direction === 'INBOUND' && OPPORTUNITY_ID_FIELDS.every((field) => !referral[field]),
    },
  },
  events: [],
  parents: ['buyer'],
  // It runs with co-sell, apart from the full pass: a buyer never synced gets its Account first.
  parentIds: (referral) => ({ buyer: referral.buyerID ? [referral.buyerID] : [] }),
  mappings: { salesforce: inboundReferralToOpportunity, hubspot: inboundReferralToDeal, dynamics: inboundReferralToDynamicsOpportunity },
  writeBack: {
    salesforce: async ({ crmId }) => ({ crmAOpportunityId: crmId }),
    hubspot: async ({ crmId }) => ({ crmBDealId: crmId }),
    dynamics: async ({ crmId }) => ({ crmCOpportunityId: dynamicsGuid(crmId) }),
  },
  deletes: 'reflect-status',
  afterWrite: attachReferralContacts,
} satisfies CommerceToCrmFlow<'buyer' | 'inbound-referral'>;
