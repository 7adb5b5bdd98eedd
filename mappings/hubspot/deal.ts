// Private offer -> HubSpot deal in the "Marketplace offers" pipeline, keyed by commerce_offer_id,
// associated to its buyer's company and its contacts. The stage comes from the offer status when the deal
// is made (a connection may override the table); an offer made from a seller's deal carries its id
// (metaInfo.crmBDealId) and updates that deal, whose stage and close date stay the seller's when the
// offer was drafted from it (sellerKeeps). The values are the canonical offer's (mappings/canonical/offer.ts).
import type { Offer } from '../../commerce/models.ts';
import { OFFER, offerValue } from '../canonical/offer.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';
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

export const offerToDeal: EntityMapping<Offer> = canonicalMapping(OFFER, {
  object: 'deals',
  externalIdField: 'commerce_offer_id',
  carriedCrmId: (record) => record.crmIds.hubspot,
  // An unknown status (§9.5) on a new record: the opening stage, since the record needs one; an existing one keeps its stage.
  unknownOnCreate: 'PENDING_CREATE',
  picklists: { dealstage: OFFER_STATUS_TO_DEAL_STAGE },
  // A seller's deal made before its offer stays in the seller's pipeline.
  createOnly: ['pipeline'],
  // On the seller's own deal (a private offer drafted from it) the stage and close date are the seller's.
  sellerKeeps: ['dealstage', 'closedate'],
  fields: {
    dealname: 'name',
    pipeline: { describe: '"Marketplace offers" (when the deal is made)', value: () => OFFER_PIPELINE },
    dealstage: offerValue('stageStatus', "offer.status through the stage map (ACCEPTED -> Accepted, EXPIRED -> Lost, ...); the seller's own on a deal the offer was drafted from"),
    closedate: offerValue('closeDate', "offer.expireTime, else the acceptance date, else the creation date; the seller's own on a deal the offer was drafted from"),
    amount: 'commitAmount',
    marketplace: 'marketplace',
    offer_type: 'offerType',
    offer_status: 'status',
    offer_url: 'url',
    offer_expiration: 'expiration',
    companies: lookup('buyerId', 'commerce_buyer_id', "associated to the buyer's company (commerce_buyer_id = offer.buyerID)"),
    contacts: { describe: 'associated to the contacts of offer.contactIds', value: (record) => record.contactIds?.map((id) => ({ commerce_contact_id: id })) },
  },
});
