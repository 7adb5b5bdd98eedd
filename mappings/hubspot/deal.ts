// Private offer -> HubSpot deal in the "Marketplace offers" pipeline, keyed by commerce_offer_id,
// associated to its buyer's company and its contacts. The stage comes from the offer status when the deal
// is made (a connection may override the table); an offer made from a seller's deal carries its id
// (metaInfo.crmBDealId) and updates that deal, whose stage and close date stay the seller's when the
// offer was drafted from it (sellerKeeps).
import type { Offer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, defined, isoDateTime, marketplaceName, offerCloseDate, UnparseableTimeError } from '../values.ts';
import { OFFER_PIPELINE } from './schema.ts';

/** Offer status (§3) -> stage of the Marketplace offers pipeline. */
export const OFFER_STATUS_TO_DEAL_STAGE: Record<string, string> = {
  PENDING_CREATE: 'Draft',
  PENDING_ACCEPTANCE: 'Offer extended',
  ACTIVE: 'Offer extended',
  UPDATE_FAILED: 'Needs attention',
  PENDING_CANCEL: 'Needs attention',
  ACCEPTED: 'Accepted',
  USED: 'Accepted',
  EXPIRED: 'Lost',
  DELETED: 'Lost',
};

export const offerToDeal: EntityMapping<Offer> = {
  entity: 'offer',
  object: 'deals',
  externalIdField: 'commerce_offer_id',
  picklists: { dealstage: OFFER_STATUS_TO_DEAL_STAGE },
  // A seller's deal made before its offer stays in the seller's pipeline.
  createOnly: ['pipeline'],
  // On the seller's own deal (a private offer drafted from it) the stage and close date are the seller's.
  sellerKeeps: ['dealstage', 'closedate'],
  describe: {
    dealname: 'offer.name (else "Offer <id>")',
    pipeline: '"Marketplace offers" (when the deal is made)',
    dealstage: "offer.status through the stage map (ACCEPTED -> Accepted, EXPIRED -> Lost, ...); the seller's own on a deal the offer was drafted from",
    closedate: "offer.expireTime, else the acceptance date, else the creation date; the seller's own on a deal the offer was drafted from",
    amount: 'offer.info.commitAmount',
    marketplace: 'offer.partner as "Marketplace A".."Marketplace F"',
    offer_type: 'offer.offerType',
    offer_status: 'offer.status as the service reports it',
    offer_url: 'offer.info.privateOfferUrl',
    offer_expiration: 'offer.expireTime',
    companies: "associated to the buyer's company (commerce_buyer_id = offer.buyerID)",
    contacts: 'associated to the contacts of offer.contactIds',
  },
  map(offer) {
    if (!offer.id) return fail('the offer has no id');
    try {
      const closeDate = offerCloseDate(offer);
      return ok({
        object: 'deals',
        externalIdField: 'commerce_offer_id',
        externalId: offer.id,
        carriedCrmId: offer.metaInfo?.crmBDealId || undefined,
        fields: defined({
          dealname: offer.name || `Offer ${offer.id}`,
          pipeline: OFFER_PIPELINE,
          dealstage: offer.status ?? 'PENDING_CREATE',
          closedate: closeDate,
          amount: amount(offer.info?.commitAmount),
          marketplace: marketplaceName(offer.partner),
          offer_type: offer.offerType,
          offer_status: offer.status,
          offer_url: offer.info?.privateOfferUrl,
          offer_expiration: isoDateTime(offer.expireTime, 'expireTime'),
          companies: offer.buyerID ? { commerce_buyer_id: offer.buyerID } : undefined,
          contacts: offer.contactIds?.length ? [...new Set(offer.contactIds)].map((id) => ({ commerce_contact_id: id })) : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`offer ${offer.id}: ${error.message}`);
      throw error;
    }
  },
};
