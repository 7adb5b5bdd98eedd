// Entitlement (with its terms) -> Marketplace_Entitlement__c, linked to its buyer's Account and its
// offer's Opportunity by their external ids.
import type { Entitlement, EntitlementTerm } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, commerceCurrency, currentTerm, defined, isoDateTime, marketplaceIds, marketplaceName, UnparseableTimeError } from '../values.ts';

export type EntitlementWithTerms = { terms: EntitlementTerm[] };

export const entitlementToMarketplaceEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = {
  entity: 'entitlement',
  object: 'Marketplace_Entitlement__c',
  externalIdField: 'Commerce_Entitlement_Id__c',
  picklists: {},
  optionalFields: ['CurrencyIsoCode'],
  describe: {
    Name: 'entitlement.name (else the id)',
    Status__c: 'entitlement.status',
    Start_Date__c: 'entitlement.startTime',
    End_Date__c: 'entitlement.endTime (cleared when null)',
    Commit_Amount__c: 'current term commitAmount, else info.commitAmount',
    Used_Commit_Amount__c: 'current term usedCommitAmount',
    Credit_Amount__c: 'current term creditAmount',
    Used_Credit_Amount__c: 'current term usedCreditAmount',
    Annualized_Amount__c: 'info.annualizedAmount',
    Currency__c: 'info.currency (USD when absent)',
    CurrencyIsoCode: 'info.currency (USD when absent): the currency Salesforce reads the amounts in; multi-currency orgs only',
    Marketplace__c: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    Marketplace_Agreement_Id__c: 'A: agreement id; B: asset id; C: entitlement name; D: order id; E/F: offer id',
    Marketplace_Subscription_Id__c: 'A: license ARN; B: subscription id; D: instance id',
    Product_Id__c: 'entitlement.productID',
    Offer_Id__c: 'entitlement.offerID',
    Account__r: "the buyer's Account, by Commerce_Buyer_Id__c = entitlement.buyerID",
    Opportunity__r: "the offer's Opportunity, by Commerce_Offer_Id__c = entitlement.offerID",
  },
  map(entitlement, { terms }) {
    if (!entitlement.id) return fail('the entitlement has no id');
    try {
      const term = currentTerm(entitlement, terms);
      const ids = marketplaceIds(entitlement);
      return ok({
        object: 'Marketplace_Entitlement__c',
        externalIdField: 'Commerce_Entitlement_Id__c',
        externalId: entitlement.id,
        fields: defined({
          Name: entitlement.name || entitlement.id,
          Status__c: entitlement.status,
          Start_Date__c: isoDateTime(entitlement.startTime, 'startTime'),
          End_Date__c: isoDateTime(entitlement.endTime, 'endTime'),
          Commit_Amount__c: amount(term?.commitAmount) ?? amount(entitlement.info?.commitAmount),
          Used_Commit_Amount__c: amount(term?.usedCommitAmount),
          Credit_Amount__c: amount(term?.creditAmount),
          Used_Credit_Amount__c: amount(term?.usedCreditAmount),
          Annualized_Amount__c: amount(entitlement.info?.annualizedAmount),
          Currency__c: commerceCurrency(entitlement.info?.currency),
          CurrencyIsoCode: commerceCurrency(entitlement.info?.currency),
          Marketplace__c: marketplaceName(entitlement.partner),
          Marketplace_Agreement_Id__c: ids.agreementId,
          Marketplace_Subscription_Id__c: ids.subscriptionId,
          Product_Id__c: entitlement.productID,
          Offer_Id__c: entitlement.offerID,
          Account__r: entitlement.buyerID ? { Commerce_Buyer_Id__c: entitlement.buyerID } : undefined,
          Opportunity__r: entitlement.offerID ? { Commerce_Offer_Id__c: entitlement.offerID } : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`entitlement ${entitlement.id}: ${error.message}`);
      throw error;
    }
  },
};
