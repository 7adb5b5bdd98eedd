// An entitlement's renewal -> an Opportunity on the buyer's Account, keyed by Commerce_Renewal_Key__c
// (renewal-<entitlement id>), linked to the entitlement it renews and, once it arrives, to the one that
// renewed it. The values are the canonical renewal's (mappings/canonical/renewal.ts).
import type { Entitlement } from '../../commerce/models.ts';
import { RENEWAL, type RenewalContext } from '../canonical/renewal.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

/** Renewal outcome -> StageName; overridable per connection (picklists.StageName). */
export const RENEWAL_OUTCOME_TO_STAGE: Record<string, string> = {
  DUE: 'Prospecting',
  DRAFTED: 'Proposal/Price Quote',
  WON: 'Closed Won',
  LOST: 'Closed Lost',
};

export const renewalToOpportunity: EntityMapping<Entitlement, RenewalContext> = canonicalMapping(RENEWAL, {
  object: 'Opportunity',
  externalIdField: 'Commerce_Renewal_Key__c',
  picklists: { StageName: RENEWAL_OUTCOME_TO_STAGE },
  optionalFields: ['CurrencyIsoCode'],
  // As on the offer's Opportunity: Salesforce refuses to change the currency of one with products.
  createOnly: ['CurrencyIsoCode'],
  fields: {
    Name: 'name',
    StageName: { describe: 'the renewal outcome through the stage map (DUE -> Prospecting, DRAFTED -> Proposal/Price Quote, WON -> Closed Won, LOST -> Closed Lost)', value: (record) => record.outcome },
    CloseDate: 'closeDate',
    Amount: 'amount',
    CurrencyIsoCode: { describe: "the renewal's currency (USD when absent): the currency of Amount; multi-currency orgs only", value: (record) => record.currency },
    Account: lookup('buyerId', 'Commerce_Buyer_Id__c', "the buyer's Account, by Commerce_Buyer_Id__c = entitlement.buyerID"),
    Marketplace__c: 'marketplace',
    Renewal_Of_Entitlement__r: lookup('entitlementId', 'Commerce_Entitlement_Id__c', 'the entitlement it renews, by Commerce_Entitlement_Id__c = entitlement.id'),
    Renewal_Entitlement__r: {
      describe: 'the entitlement that renewed it, by Commerce_Entitlement_Id__c (empty until it arrives)',
      value: (record) => (record.renewalEntitlementId ? { Commerce_Entitlement_Id__c: record.renewalEntitlementId } : undefined),
    },
    Renewal_Offer_Id__c: 'renewalOfferId',
    Offer_URL__c: 'renewalOfferUrl',
  },
});
