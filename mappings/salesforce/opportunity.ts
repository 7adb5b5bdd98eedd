// Private offer -> Opportunity. An offer made from an existing Opportunity carries its id
// (metaInfo.crmAOpportunityId), so that Opportunity is updated instead of a second one created; one the
// seller drafted it from keeps its own stage and close date (sellerKeeps). The values are the canonical
// offer's (mappings/canonical/offer.ts); this table says which field takes which.
import type { Offer } from '../../commerce/models.ts';
import { OFFER, offerValue } from '../canonical/offer.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

/** Offer status (§3) -> StageName; overridable per connection. */
export const OFFER_STATUS_TO_STAGE: Record<string, string> = {
  PENDING_CREATE: 'Prospecting',
  PENDING_ACCEPTANCE: 'Proposal/Price Quote',
  ACTIVE: 'Proposal/Price Quote',
  UPDATE_FAILED: 'Negotiation/Review',
  PENDING_CANCEL: 'Negotiation/Review',
  ACCEPTED: 'Closed Won',
  USED: 'Closed Won',
  EXPIRED: 'Closed Lost',
  DELETED: 'Closed Lost',
};

export const offerToOpportunity: EntityMapping<Offer> = canonicalMapping(OFFER, {
  object: 'Opportunity',
  externalIdField: 'Commerce_Offer_Id__c',
  carriedCrmId: (record) => record.crmIds.salesforce,
  // An unknown status (§9.5) on a new record: the opening stage, since the record needs one; an existing one keeps its stage.
  unknownOnCreate: 'PENDING_CREATE',
  picklists: { StageName: OFFER_STATUS_TO_STAGE },
  optionalFields: ['CurrencyIsoCode'],
  // Salesforce refuses to change the currency of an Opportunity with products (their price book entries
  // are in its currency): set when the sync makes it, never changed after (docs/crm-wire-behaviour.md).
  createOnly: ['CurrencyIsoCode'],
  // On the seller's own Opportunity (a private offer drafted from it) the stage and close date are the seller's.
  sellerKeeps: ['StageName', 'CloseDate'],
  fields: {
    Name: 'name',
    StageName: offerValue('stageStatus', "offer.status through the stage map (ACCEPTED -> Closed Won, EXPIRED -> Closed Lost, ...); the seller's own on an Opportunity the offer was drafted from"),
    CloseDate: offerValue('closeDate', "offer.expireTime, else the acceptance date, else the creation date (Salesforce requires one); the seller's own on an Opportunity the offer was drafted from"),
    Amount: 'commitAmount',
    CurrencyIsoCode: offerValue('currency', 'offer.info.currency (USD when absent): the currency of Amount; multi-currency orgs only'),
    Account: lookup('buyerId', 'Commerce_Buyer_Id__c', "the buyer's Account, by Commerce_Buyer_Id__c = offer.buyerID"),
    Marketplace__c: 'marketplace',
    Offer_Type__c: 'offerType',
    Offer_Status__c: 'status',
    Offer_URL__c: 'url',
    Offer_Expiration__c: 'expiration',
  },
});
