// Buyer -> Account. A buyer deleted on the commerce side is a soft delete there (A6: status DELETED):
// its Account stays and says so in Marketplace_Status__c, like offers and entitlements show theirs. The
// values are the canonical buyer's (mappings/canonical/buyer.ts); this table says which field takes which.
import type { Buyer } from '../../commerce/models.ts';
import { BUYER } from '../canonical/buyer.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const buyerToAccount: EntityMapping<Buyer> = canonicalMapping(BUYER, {
  object: 'Account',
  externalIdField: 'Commerce_Buyer_Id__c',
  carriedCrmId: (record) => record.crmIds.salesforce,
  fields: {
    Name: 'name',
    Marketplace__c: 'marketplace',
    Marketplace_Account_Id__c: 'marketplaceAccountId',
    BillingCountry: 'country',
    Website: 'website',
    Marketplace_Status__c: 'marketplaceStatus',
  },
});
