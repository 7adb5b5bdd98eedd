// Co-sell referral -> Cosell_Referral__c, linked to its Opportunity: the CRM id the referral carries
// (it was created from that Opportunity), else the Opportunity of its offer.
import type { Referral } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, commerceCurrency, defined, isoDate, marketplaceName, UnparseableTimeError } from '../values.ts';

export const referralToCosellReferral: EntityMapping<Referral> = {
  entity: 'referral',
  object: 'Cosell_Referral__c',
  externalIdField: 'Commerce_Referral_Id__c',
  picklists: {},
  optionalFields: ['CurrencyIsoCode'],
  describe: {
    Name: 'referral.name (else the id)',
    Stage__c: 'referral.stage',
    Status__c: 'referral.status',
    Partner__c: 'referral.partner as "Marketplace A".."Marketplace F"',
    Direction__c: 'referral.direction (INBOUND or OUTBOUND)',
    Deal_Value__c: 'referral.dealValue',
    Currency__c: 'referral.currency',
    CurrencyIsoCode: 'referral.currency (USD when absent): the currency of Deal_Value__c; multi-currency orgs only',
    Expected_Close_Date__c: 'referral.expectedCloseDate',
    Opportunity__c: 'referral.crmAOpportunityId when it carries one',
    Opportunity__r: "otherwise the offer's Opportunity, by Commerce_Offer_Id__c = referral.offerID",
  },
  map(referral) {
    if (!referral.id) return fail('the referral has no id');
    try {
      return ok({
        object: 'Cosell_Referral__c',
        externalIdField: 'Commerce_Referral_Id__c',
        externalId: referral.id,
        fields: defined({
          Name: referral.name || referral.id,
          Stage__c: referral.stage,
          Status__c: referral.status,
          Partner__c: marketplaceName(referral.partner),
          Direction__c: referral.direction,
          Deal_Value__c: amount(referral.dealValue),
          Currency__c: referral.currency,
          CurrencyIsoCode: commerceCurrency(referral.currency),
          Expected_Close_Date__c: isoDate(referral.expectedCloseDate, 'expectedCloseDate'),
          Opportunity__c: referral.crmAOpportunityId || undefined,
          Opportunity__r: !referral.crmAOpportunityId && referral.offerID ? { Commerce_Offer_Id__c: referral.offerID } : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`referral ${referral.id}: ${error.message}`);
      throw error;
    }
  },
};
