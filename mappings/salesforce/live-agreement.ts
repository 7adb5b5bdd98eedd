// A buyer's live marketplace agreement -> Has_Live_Marketplace_Agreement__c on its Account (by
// Commerce_Buyer_Id__c, the Account the buyer flow made). The value is the canonical one (mappings/canonical/live-agreement.ts).
import { LIVE_AGREEMENT, type BuyerAgreements } from '../canonical/live-agreement.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const liveAgreementToAccount: EntityMapping<BuyerAgreements> = canonicalMapping(LIVE_AGREEMENT, {
  object: 'Account',
  externalIdField: 'Commerce_Buyer_Id__c',
  fields: { Has_Live_Marketplace_Agreement__c: 'live' },
});
