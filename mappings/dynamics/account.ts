// Buyer -> account, keyed by ccs_commercebuyerid (alternate key ccs_commercebuyerid_key). A buyer deleted
// on the commerce side (A6, a soft delete) keeps its account, marked Deleted in ccs_marketplacestatus.
import type { Buyer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined, dynamicsGuid, marketplaceName } from '../values.ts';

const BUYER_STATUS: Record<string, string> = { ACTIVE: 'Active', DELETED: 'Deleted' };

export const buyerToAccount: EntityMapping<Buyer> = {
  entity: 'buyer',
  object: 'account',
  externalIdField: 'ccs_commercebuyerid',
  picklists: {},
  describe: {
    name: 'buyer.name (else the buyer id)',
    websiteurl: 'https://<buyer.emailDomain>',
    address1_country: 'buyer.country',
    ccs_marketplace: 'buyer.partner as "Marketplace A".."Marketplace F"',
    ccs_marketplaceaccountid: "buyer.externalID (the buyer's account id on its marketplace)",
    ccs_marketplacestatus: 'buyer.status: ACTIVE -> "Active", DELETED -> "Deleted"; another status is kept as it came (§9.5)',
  },
  map(buyer) {
    if (!buyer.id) return fail('the buyer has no id');
    const carried = buyer.metaInfo?.crmCAccountId;
    return ok({
      object: 'account',
      externalIdField: 'ccs_commercebuyerid',
      externalId: buyer.id,
      carriedCrmId: carried ? dynamicsGuid(carried) : undefined,
      fields: defined({
        name: buyer.name || buyer.id,
        websiteurl: buyer.emailDomain ? `https://${buyer.emailDomain}` : undefined,
        address1_country: buyer.country,
        ccs_marketplace: marketplaceName(buyer.partner),
        ccs_marketplaceaccountid: buyer.externalID,
        ccs_marketplacestatus: buyer.status ? (BUYER_STATUS[buyer.status] ?? buyer.status) : undefined,
      }),
    });
  },
};
