// A buyer's live marketplace agreement -> ccs_haslivemarketplaceagreement on its account (by the
// ccs_commercebuyerid key). The value is the canonical one (mappings/canonical/live-agreement.ts).
import { LIVE_AGREEMENT, type BuyerAgreements } from '../canonical/live-agreement.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const liveAgreementToDynamicsAccount: EntityMapping<BuyerAgreements> = canonicalMapping(LIVE_AGREEMENT, {
  object: 'account',
  externalIdField: 'ccs_commercebuyerid',
  fields: { ccs_haslivemarketplaceagreement: 'live' },
});
