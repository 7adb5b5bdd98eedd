// An entitlement's renewal -> a deal in the "Marketplace renewals" pipeline, keyed by
// commerce_renewal_key (renewal-<entitlement id>), associated to the buyer's company and to the
// entitlement it renews (and, once it arrives, the one that renewed it: HubSpot's associations show on
// both records, so the entitlement shows its renewal deal). The values are the canonical renewal's.
import type { Entitlement } from '../../commerce/models.ts';
import { RENEWAL, type CanonicalRenewal, type RenewalContext } from '../canonical/renewal.ts';
import { canonicalMapping, lookup, type FieldTable } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';
import { ENTITLEMENT_ID_PROPERTY, RENEWAL_PIPELINE } from './schema.ts';

/** Renewal outcome -> stage of the Marketplace renewals pipeline; overridable per connection (picklists.dealstage). */
export const RENEWAL_OUTCOME_TO_DEAL_STAGE: Record<string, string> = {
  DUE: 'Renewal due',
  DRAFTED: 'Renewal offer drafted',
  WON: 'Renewed',
  LOST: 'Not renewed',
};

/** The deal's fields but its association to entitlements (HubSpot's custom object). */
const DEAL: FieldTable<CanonicalRenewal> = {
  dealname: 'name',
  pipeline: { describe: '"Marketplace renewals" (when the deal is made)', value: () => RENEWAL_PIPELINE },
  dealstage: { describe: 'the renewal outcome through the stage map (DUE -> Renewal due, DRAFTED -> Renewal offer drafted, WON -> Renewed, LOST -> Not renewed)', value: (record) => record.outcome },
  closedate: 'closeDate',
  amount: 'amount',
  marketplace: 'marketplace',
  renewal_offer_id: 'renewalOfferId',
  offer_url: 'renewalOfferUrl',
  renewal_entitlement_id: 'renewalEntitlementId',
  companies: lookup('buyerId', 'commerce_buyer_id', "associated to the buyer's company (commerce_buyer_id = entitlement.buyerID)"),
};

const deal = (fields: FieldTable<CanonicalRenewal>): EntityMapping<Entitlement, RenewalContext> =>
  canonicalMapping(RENEWAL, { object: 'deals', externalIdField: 'commerce_renewal_key', picklists: { dealstage: RENEWAL_OUTCOME_TO_DEAL_STAGE }, createOnly: ['pipeline'], fields });

export const renewalToHubSpotDeal = deal({
  ...DEAL,
  marketplace_entitlement: {
    describe: `associated to the entitlement it renews and, once it arrives, the one that renewed it (${ENTITLEMENT_ID_PROPERTY})`,
    value: (record) => [record.entitlementId, ...(record.renewalEntitlementId ? [record.renewalEntitlementId] : [])].map((id) => ({ [ENTITLEMENT_ID_PROPERTY]: id })),
  },
});

/**
 * An account without custom objects (entitlements as line items on the offer's deal): no association to
 * entitlements; the renewing one's id as text (renewal_entitlement_id), the renewed one in the deal's name.
 */
export const renewalToHubSpotDealOnLineItems = deal(DEAL);
