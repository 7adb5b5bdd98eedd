// Entitlement (with its terms) -> Marketplace_Entitlement__c, linked to its buyer's Account and its
// offer's Opportunity by their external ids. The values are the canonical entitlement's
// (mappings/canonical/entitlement.ts); this table says which field takes which.
import type { Entitlement } from '../../commerce/models.ts';
import { ENTITLEMENT, REVENUE_VALUES, type CanonicalEntitlement, type EntitlementWithTerms } from '../canonical/entitlement.ts';
import { canonicalMapping, fieldsTaking, lookup, type FieldTable } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export type { EntitlementWithTerms };

/** Marketplace_Entitlement__c's fields, by the canonical value each takes. */
const FIELDS: FieldTable<CanonicalEntitlement> = {
  Name: 'name',
  Status__c: 'status',
  Start_Date__c: 'startTime',
  End_Date__c: 'endTime',
  Commit_Amount__c: 'commitAmount',
  Used_Commit_Amount__c: 'usedCommitAmount',
  Credit_Amount__c: 'creditAmount',
  Used_Credit_Amount__c: 'usedCreditAmount',
  Annualized_Amount__c: 'annualizedAmount',
  Currency__c: 'currency',
  CurrencyIsoCode: { describe: 'info.currency (USD when absent): the currency Salesforce reads the amounts in; multi-currency orgs only', value: (record: CanonicalEntitlement) => record.currency },
  Marketplace__c: 'marketplace',
  Marketplace_Agreement_Id__c: 'agreementId',
  Marketplace_Subscription_Id__c: 'subscriptionId',
  Product_Id__c: 'productId',
  Offer_Id__c: 'offerId',
  Invoiced_Amount__c: 'invoicedAmount',
  Gross_Amount__c: 'grossAmount',
  Collectable_Amount__c: 'collectableAmount',
  Disbursed_Amount__c: 'disbursedAmount',
  Reported_Amount__c: 'reportedAmount',
  Net_Terms_Days__c: 'netTermsInDays',
  Auto_Renew__c: 'autoRenew',
  Agreement_Status__c: 'agreementStatus',
  Agreement_PDF_URL__c: 'agreementPdfUrl',
  Agreement_PDF_Note__c: 'agreementPdfNote',
  Initial_Agreement_Id__c: 'initialAgreementId',
  Payment_Installments__c: 'paymentInstallments',
  Account__r: lookup('buyerId', 'Commerce_Buyer_Id__c', "the buyer's Account, by Commerce_Buyer_Id__c = entitlement.buyerID"),
  Opportunity__r: lookup('offerId', 'Commerce_Offer_Id__c', "the offer's Opportunity, by Commerce_Offer_Id__c = entitlement.offerID"),
};

export const entitlementToMarketplaceEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = canonicalMapping(ENTITLEMENT, {
  object: 'Marketplace_Entitlement__c',
  externalIdField: 'Commerce_Entitlement_Id__c',
  // Fields an org set up before them lacks: written where it has them (mappings/fit-to-schema.ts).
  optionalFields: ['CurrencyIsoCode', ...fieldsTaking(FIELDS, REVENUE_VALUES)],
  fields: FIELDS,
});
