// Co-sell referrals -> CRM referral records, on the buyer's account and the offer's opportunity.
// The referral list takes q and s like the query endpoints (A5) and pages by offset.
import { referralToCosellReferral as referralToDynamicsReferral } from '../mappings/dynamics/referral.ts';
import { referralToDeal } from '../mappings/hubspot/referral.ts';
import { referralToCosellReferral } from '../mappings/salesforce/referral.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const referralFlow = {
  name: 'referral',
  direction: 'commerce-to-crm',
  source: {
    window: (c, org, q) => c.referrals.list(org, { limit: q.pageSize, offset: (q.startPage - 1) * q.pageSize, q: q.q, s: q.s }),
    byId: (c, org, id) => c.referrals.get(org, id),
    updateMetaInfo: (c, org, id, patch) => c.referrals.update(org, id, patch),
    current: (referral) => referral,
  },
  events: ['REFERRAL'],
  parents: ['buyer', 'offer'],
  mappings: { salesforce: referralToCosellReferral, hubspot: referralToDeal, dynamics: referralToDynamicsReferral },
  // HubSpot makes a deal of each referral: its id goes back onto the referral (crmBDealId). Never onto an
  // INBOUND one that carries none: taking an inbound referral is the inbound flow's (flows/inbound-referral.ts),
  // which makes the seller's opportunity in whichever CRM takes it first, with its contacts and its stage
  // pair; written here, the id would tell every connection's inbound flow (Salesforce's and Dynamics' too)
  // that the referral is taken, and none would take it. One that already carries a deal id is taken:
  // that id is kept right, as for any referral.
  writeBack: { hubspot: async ({ crmId, current }) => (current?.direction === 'INBOUND' && !current.crmBDealId ? undefined : { crmBDealId: crmId }) },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer' | 'offer' | 'referral'>;
