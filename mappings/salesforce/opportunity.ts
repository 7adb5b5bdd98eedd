// Private offer -> Opportunity. An offer made from an existing Opportunity carries its id
// (metaInfo.crmAOpportunityId), so that Opportunity is updated instead of a second one created; one the
// seller drafted it from keeps its own stage and close date (sellerKeeps).
import type { Offer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, commerceCurrency, defined, isoDateTime, marketplaceName, offerCloseDate, UnparseableTimeError } from '../values.ts';

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

export const offerToOpportunity: EntityMapping<Offer> = {
  entity: 'offer',
  object: 'Opportunity',
  externalIdField: 'Commerce_Offer_Id__c',
  picklists: { StageName: OFFER_STATUS_TO_STAGE },
  optionalFields: ['CurrencyIsoCode'],
  // Salesforce refuses to change the currency of an Opportunity with products (their price book entries
  // are in its currency): set when the sync makes it, never changed after (docs/crm-wire-behaviour.md).
  createOnly: ['CurrencyIsoCode'],
  // On the seller's own Opportunity (a private offer drafted from it) the stage and close date are the seller's.
  sellerKeeps: ['StageName', 'CloseDate'],
  describe: {
    Name: 'offer.name (else "Offer <id>")',
    StageName: "offer.status through the stage map (ACCEPTED -> Closed Won, EXPIRED -> Closed Lost, ...); the seller's own on an Opportunity the offer was drafted from",
    CloseDate: "offer.expireTime, else the acceptance date, else the creation date (Salesforce requires one); the seller's own on an Opportunity the offer was drafted from",
    Amount: 'offer.info.commitAmount',
    CurrencyIsoCode: 'offer.info.currency (USD when absent): the currency of Amount; multi-currency orgs only',
    Account: "the buyer's Account, by Commerce_Buyer_Id__c = offer.buyerID",
    Marketplace__c: 'offer.partner as "Marketplace A".."Marketplace F"',
    Offer_Type__c: 'offer.offerType (PRIVATE, CPPO, CPPO_IN, CPPO_OUT, ...)',
    Offer_Status__c: 'offer.status as the service reports it',
    Offer_URL__c: 'offer.info.privateOfferUrl',
    Offer_Expiration__c: 'offer.expireTime',
  },
  map(offer) {
    if (!offer.id) return fail('the offer has no id');
    try {
      // Without a close date none is written: Salesforce refuses a new Opportunity without one, and that
      // offer waits as a dead letter saying so.
      const closeDate = offerCloseDate(offer);
      return ok({
        object: 'Opportunity',
        externalIdField: 'Commerce_Offer_Id__c',
        externalId: offer.id,
        carriedCrmId: offer.metaInfo?.crmAOpportunityId || undefined,
        fields: defined({
          Name: offer.name || `Offer ${offer.id}`,
          StageName: offer.status ?? 'PENDING_CREATE',
          CloseDate: closeDate,
          Amount: amount(offer.info?.commitAmount),
          CurrencyIsoCode: commerceCurrency(offer.info?.currency),
          Account: offer.buyerID ? { Commerce_Buyer_Id__c: offer.buyerID } : undefined,
          Marketplace__c: marketplaceName(offer.partner),
          Offer_Type__c: offer.offerType,
          Offer_Status__c: offer.status,
          Offer_URL__c: offer.info?.privateOfferUrl,
          Offer_Expiration__c: isoDateTime(offer.expireTime, 'expireTime'),
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`offer ${offer.id}: ${error.message}`);
      throw error;
    }
  },
};
