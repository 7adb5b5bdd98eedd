// Buyer -> account, keyed by ccs_commercebuyerid (alternate key ccs_commercebuyerid_key). A buyer deleted
// on the commerce side (A6, a soft delete) keeps its account, marked Deleted in ccs_marketplacestatus. The
// values are the canonical buyer's (mappings/canonical/buyer.ts).
import type { Buyer } from '../../commerce/models.ts';
import { BUYER } from '../canonical/buyer.ts';
import { canonicalMapping } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';
import { dynamicsGuid } from '../values.ts';

export const buyerToAccount: EntityMapping<Buyer> = canonicalMapping(BUYER, {
  object: 'account',
  externalIdField: 'ccs_commercebuyerid',
  // The contract wants Dataverse ids lowercased and without braces (§2.6).
  carriedCrmId: (record) => (record.crmIds.dynamics ? dynamicsGuid(record.crmIds.dynamics) : undefined),
  fields: {
    name: 'name',
    websiteurl: 'website',
    address1_country: 'country',
    ccs_marketplace: 'marketplace',
    ccs_marketplaceaccountid: 'marketplaceAccountId',
    ccs_marketplacestatus: 'marketplaceStatus',
  },
});
