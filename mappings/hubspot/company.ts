// Buyer -> HubSpot company, keyed by commerce_buyer_id. A buyer deleted on the commerce side (A6, a soft
// delete) keeps its company, marked Deleted in marketplace_status.
import type { Buyer } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined, marketplaceName } from '../values.ts';

const BUYER_STATUS: Record<string, string> = { ACTIVE: 'Active', DELETED: 'Deleted' };

export const buyerToCompany: EntityMapping<Buyer> = {
  entity: 'buyer',
  object: 'companies',
  externalIdField: 'commerce_buyer_id',
  picklists: {},
  describe: {
    name: 'buyer.name (else the buyer id)',
    domain: 'buyer.emailDomain',
    country: 'buyer.country',
    marketplace: 'buyer.partner as "Marketplace A".."Marketplace F"',
    marketplace_account_id: "buyer.externalID (the buyer's account id on its marketplace)",
    marketplace_status: 'buyer.status: ACTIVE -> "Active", DELETED -> "Deleted"; another status is kept as it came',
  },
  map(buyer) {
    if (!buyer.id) return fail('the buyer has no id');
    return ok({
      object: 'companies',
      externalIdField: 'commerce_buyer_id',
      externalId: buyer.id,
      carriedCrmId: buyer.metaInfo?.crmBCompanyId || undefined,
      fields: defined({
        name: buyer.name || buyer.id,
        domain: buyer.emailDomain,
        country: buyer.country,
        marketplace: marketplaceName(buyer.partner),
        marketplace_account_id: buyer.externalID,
        marketplace_status: buyer.status ? (BUYER_STATUS[buyer.status] ?? buyer.status) : undefined,
      }),
    });
  },
};
