// Buyer -> Account. A buyer deleted on the commerce side is a soft delete there (A6: status DELETED):
// its Account stays and says so in Marketplace_Status__c, like offers and entitlements show theirs.
import type { Buyer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined, marketplaceName } from '../values.ts';

/** A6's buyer statuses as the Account's Marketplace_Status__c picklist values. */
const BUYER_STATUS: Record<string, string> = { ACTIVE: 'Active', DELETED: 'Deleted' };

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
    Marketplace_Status__c: 'buyer.status: ACTIVE -> "Active", DELETED -> "Deleted"; a status the contract does not list yet is kept as it came (§9.5)',
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
        Marketplace_Status__c: buyer.status ? (BUYER_STATUS[buyer.status] ?? buyer.status) : undefined,
      }),
    });
  },
};
