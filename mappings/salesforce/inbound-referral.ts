// Inbound co-sell referral (sent by a cloud partner) -> a new Opportunity on its buyer's Account, keyed by
// Commerce_Referral_Id__c. The stage is set when the Opportunity is made; after that it is kept in step
// both ways under the connection's policy, not by this mapping (createOnly).
import type { Referral } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { commerceCurrency, defined, marketplaceName } from '../values.ts';
import { COSELL_TO_SALESFORCE_STAGE } from './stages.ts';

export const inboundReferralToOpportunity: EntityMapping<Referral> = {
  entity: 'inbound-referral',
  object: 'Opportunity',
  externalIdField: 'Commerce_Referral_Id__c',
  picklists: {},
  // CurrencyIsoCode too: Salesforce refuses to change the currency of an Opportunity with products.
  createOnly: ['StageName', 'CurrencyIsoCode'],
  optionalFields: ['CurrencyIsoCode'],
  describe: {
    Name: 'referral.name (else "Referral <id>")',
    StageName: 'referral.stage through the co-sell -> Salesforce stage table (when made; then kept in step both ways)',
    CloseDate: 'referral.expectedCloseDate, else its creation date (Salesforce requires one)',
    Amount: 'referral.dealValue',
    CurrencyIsoCode: 'referral.currency (USD when absent): the currency of Amount; multi-currency orgs only',
    Account: "the referral's buyer's Account (by Commerce_Buyer_Id__c)",
    Cosell_Partner__c: 'referral.partner as "Marketplace A".."Marketplace F"',
    Cosell_Status__c: 'referral.status',
    Cosell_Stage__c: 'referral.stage',
    Description: 'referral.description',
  },
  map(referral) {
    if (!referral.id) return fail('the referral has no id');
    if (!referral.buyerID) return fail(`referral ${referral.id} names no buyer, so there is no Account to put its Opportunity on`);
    const closeDate = (referral.expectedCloseDate ?? (typeof referral.creationTime === 'string' ? referral.creationTime : undefined))?.slice(0, 10);
    return ok({
      object: 'Opportunity',
      externalIdField: 'Commerce_Referral_Id__c',
      externalId: referral.id,
      carriedCrmId: referral.crmAOpportunityId || undefined,
      fields: defined({
        Name: referral.name || `Referral ${referral.id}`,
        StageName: COSELL_TO_SALESFORCE_STAGE[referral.stage ?? 'Prospect'] ?? 'Prospecting',
        CloseDate: closeDate,
        Amount: typeof referral.dealValue === 'number' ? referral.dealValue : undefined,
        CurrencyIsoCode: commerceCurrency(referral.currency),
        Account: { Commerce_Buyer_Id__c: referral.buyerID },
        Cosell_Partner__c: marketplaceName(referral.partner),
        Cosell_Status__c: referral.status,
        Cosell_Stage__c: referral.stage,
        Description: referral.description,
      }),
    });
  },
};
