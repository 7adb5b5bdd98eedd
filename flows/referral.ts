// Co-sell referrals -> CRM referral records, on the buyer's account and the offer's opportunity.
// The referral list takes q and s like the query endpoints (A5) and pages by offset.
import { referralToCosellReferral } from '../mappings/salesforce/referral.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const referralFlow = {
  name: 'referral',
  direction: 'commerce-to-crm',
  source: {
    window: (c, org, q) => c.referrals.list(org, { limit: q.pageSize, offset: (q.startPage - 1) * q.pageSize, q: q.q, s: q.s }),
    byId: (c, org, id) => c.referrals.get(org, id),
  },
  events: ['REFERRAL'],
  parents: ['buyer', 'offer'],
  mappings: { salesforce: referralToCosellReferral },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer' | 'offer' | 'referral'>;
