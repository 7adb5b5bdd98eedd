// A buyer's live marketplace agreement -> has_live_marketplace_agreement on its company (by
// commerce_buyer_id). The value is the canonical one (mappings/canonical/live-agreement.ts).
import { LIVE_AGREEMENT, type BuyerAgreements } from '../canonical/live-agreement.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const liveAgreementToHubSpotCompany: EntityMapping<BuyerAgreements> = canonicalMapping(LIVE_AGREEMENT, {
  object: 'companies',
  externalIdField: 'commerce_buyer_id',
  fields: { has_live_marketplace_agreement: 'live' },
});
