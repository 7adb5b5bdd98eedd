// Buyer -> HubSpot company, keyed by commerce_buyer_id. A buyer deleted on the commerce side (A6, a soft
// delete) keeps its company, marked Deleted in marketplace_status. The values are the canonical buyer's
// (mappings/canonical/buyer.ts).
import type { Buyer } from '../../commerce/models.ts';
import { BUYER } from '../canonical/buyer.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const buyerToCompany: EntityMapping<Buyer> = canonicalMapping(BUYER, {
  object: 'companies',
  externalIdField: 'commerce_buyer_id',
  carriedCrmId: (record) => record.crmIds.hubspot,
  fields: {
    name: 'name',
    // HubSpot's company domain is a bare domain (it matches contacts' emails to it), not a web address.
    domain: 'domain',
    country: 'country',
    marketplace: 'marketplace',
    marketplace_account_id: 'marketplaceAccountId',
    marketplace_status: 'marketplaceStatus',
  },
});
