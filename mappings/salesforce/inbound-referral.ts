// Inbound co-sell referral (sent by a cloud partner) -> a new Opportunity on its buyer's Account, keyed by
// Commerce_Referral_Id__c. The stage is set when the Opportunity is made; after that it is kept in step
// both ways under the connection's policy, not by this mapping (createOnly). The values are the canonical
// inbound referral's (mappings/canonical/referral.ts).
import type { Referral } from '../../commerce/models.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import { cosellStageThrough, inboundReferral } from '../canonical/referral.ts';
import type { EntityMapping } from '../types.ts';
import { COSELL_TO_SALESFORCE_STAGE } from './stages.ts';

export const inboundReferralToOpportunity: EntityMapping<Referral> = canonicalMapping(inboundReferral({ account: 'Account', opportunity: 'Opportunity' }), {
  object: 'Opportunity',
  externalIdField: 'Commerce_Referral_Id__c',
  // CurrencyIsoCode too: Salesforce refuses to change the currency of an Opportunity with products.
  createOnly: ['StageName', 'CurrencyIsoCode'],
  optionalFields: ['CurrencyIsoCode'],
  carriedCrmId: (record) => record.crmIds.salesforce,
  fields: {
    Name: 'dealName',
    StageName: cosellStageThrough(COSELL_TO_SALESFORCE_STAGE, 'referral.stage through the co-sell -> Salesforce stage table (when made; then kept in step both ways)'),
    // Salesforce requires a close date: the creation date stands in for a missing expected one.
    CloseDate: 'closeDate',
    Amount: 'dealValue',
    CurrencyIsoCode: { describe: 'referral.currency (USD when absent): the currency of Amount; multi-currency orgs only', value: (record) => record.valueCurrency },
    Account: lookup('buyerId', 'Commerce_Buyer_Id__c', "the referral's buyer's Account (by Commerce_Buyer_Id__c)"),
    Cosell_Partner__c: 'partner',
    Cosell_Status__c: 'status',
    Cosell_Stage__c: 'stage',
    Description: 'description',
  },
});
