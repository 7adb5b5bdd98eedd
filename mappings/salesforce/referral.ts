// Co-sell referral -> Cosell_Referral__c, linked to its Opportunity: the CRM id the referral carries
// (it was created from that Opportunity), else the Opportunity of its offer. The values are the
// canonical referral's (mappings/canonical/referral.ts).
import type { Referral } from '../../commerce/models.ts';
import { canonicalMapping } from '../canonical/record.ts';
import { REFERRAL } from '../canonical/referral.ts';
import type { EntityMapping } from '../types.ts';

export const referralToCosellReferral: EntityMapping<Referral> = canonicalMapping(REFERRAL, {
  object: 'Cosell_Referral__c',
  externalIdField: 'Commerce_Referral_Id__c',
  optionalFields: ['CurrencyIsoCode'],
  fields: {
    Name: 'name',
    Stage__c: 'stage',
    Status__c: 'status',
    Partner__c: 'partner',
    Direction__c: 'direction',
    Deal_Value__c: 'dealValue',
    Currency__c: 'currency',
    CurrencyIsoCode: { describe: 'referral.currency (USD when absent): the currency of Deal_Value__c; multi-currency orgs only', value: (record) => record.valueCurrency },
    Expected_Close_Date__c: 'expectedCloseDate',
    Opportunity__c: { describe: 'referral.crmAOpportunityId when it carries one', value: (record) => record.crmIds.salesforce },
    Opportunity__r: {
      describe: "otherwise the offer's Opportunity, by Commerce_Offer_Id__c = referral.offerID",
      value: (record) => (!record.crmIds.salesforce && record.offerId ? { Commerce_Offer_Id__c: record.offerId } : undefined),
    },
  },
});
