// Buyer -> Account.
import type { Buyer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined, marketplaceName } from '../values.ts';

export const buyerToAccount: EntityMapping<Buyer> = {
  entity: 'buyer',
  object: 'Account',
  externalIdField: 'Commerce_Buyer_Id__c',
  picklists: {},
  describe: {
    Name: 'buyer.name (else the buyer id)',
    Marketplace__c: 'buyer.partner as "Marketplace A".."Marketplace F"',
    Marketplace_Account_Id__c: "buyer.externalID (the buyer's account id on its marketplace)",
    BillingCountry: 'buyer.country',
    Website: 'https://<buyer.emailDomain>',
  },
  map(buyer) {
    if (!buyer.id) return fail('the buyer has no id');
    return ok({
      object: 'Account',
      externalIdField: 'Commerce_Buyer_Id__c',
      externalId: buyer.id,
      carriedCrmId: buyer.metaInfo?.crmAAccountId || undefined,
      fields: defined({
        Name: buyer.name || buyer.id,
        Marketplace__c: marketplaceName(buyer.partner),
        Marketplace_Account_Id__c: buyer.externalID,
        BillingCountry: buyer.country,
        Website: buyer.emailDomain ? `https://${buyer.emailDomain}` : undefined,
      }),
    });
  },
};
