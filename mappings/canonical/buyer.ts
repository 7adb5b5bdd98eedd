// The buyer as every CRM shows it (its Account / company / account): computed once (issue #25 section 1).
// A buyer deleted on the commerce side is a soft delete there (A6: status DELETED): its CRM record stays
// and says so in its marketplace status, as offers and entitlements show theirs.
import type { Buyer } from '../../commerce/models.ts';
import { marketplaceName } from '../values.ts';
import type { CanonicalRecord } from './record.ts';

/** A6's buyer statuses as a salesperson reads them. */
const BUYER_STATUS: Record<string, string> = { ACTIVE: 'Active', DELETED: 'Deleted' };

export type CanonicalBuyer = {
  id: string;
  name: string;
  /** The buyer's email domain, as a domain (HubSpot's company domain). */
  domain?: string;
  /** The same domain as a web address (a website field). */
  website?: string;
  country?: string;
  marketplace?: string;
  marketplaceAccountId?: string;
  marketplaceStatus?: string;
  /** The CRM records the buyer already carries (metaInfo.crmAAccountId, crmBCompanyId, crmCAccountId), as they came. */
  crmIds: { salesforce?: string; hubspot?: string; dynamics?: string };
};

export const BUYER: CanonicalRecord<Buyer, unknown, CanonicalBuyer> = {
  entity: 'buyer',
  id: (record) => record.id,
  describe: {
    id: 'buyer.id',
    name: 'buyer.name (else the buyer id)',
    domain: 'buyer.emailDomain',
    website: 'https://<buyer.emailDomain>',
    country: 'buyer.country',
    marketplace: 'buyer.partner as "Marketplace A".."Marketplace F"',
    marketplaceAccountId: "buyer.externalID (the buyer's account id on its marketplace)",
    marketplaceStatus: 'buyer.status: ACTIVE -> "Active", DELETED -> "Deleted"; a status the contract does not list yet is kept as it came (§9.5)',
    crmIds: 'buyer.metaInfo.crmAAccountId / crmBCompanyId / crmCAccountId: the record the buyer already has in each CRM',
  },
  compute(buyer) {
    if (!buyer.id) return { ok: false, reason: 'the buyer has no id' };
    return {
      ok: true,
      value: {
        id: buyer.id,
        name: buyer.name || buyer.id,
        domain: buyer.emailDomain,
        website: buyer.emailDomain ? `https://${buyer.emailDomain}` : undefined,
        country: buyer.country,
        marketplace: marketplaceName(buyer.partner),
        marketplaceAccountId: buyer.externalID,
        marketplaceStatus: buyer.status ? (BUYER_STATUS[buyer.status] ?? buyer.status) : undefined,
        crmIds: {
          salesforce: buyer.metaInfo?.crmAAccountId || undefined,
          hubspot: buyer.metaInfo?.crmBCompanyId || undefined,
          dynamics: buyer.metaInfo?.crmCAccountId || undefined,
        },
      },
    };
  },
};
