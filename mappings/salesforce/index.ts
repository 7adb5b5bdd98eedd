// The default Salesforce mappings, one per entity.
import { buyerToAccount } from './account.ts';
import { contactToContact } from './contact.ts';
import { entitlementToMarketplaceEntitlement } from './entitlement.ts';
import { offerToOpportunity } from './opportunity.ts';
import { referralToCosellReferral } from './referral.ts';

export const SALESFORCE_MAPPINGS = {
  buyer: buyerToAccount,
  contact: contactToContact,
  offer: offerToOpportunity,
  entitlement: entitlementToMarketplaceEntitlement,
  referral: referralToCosellReferral,
} as const;

export { buyerToAccount, contactToContact, entitlementToMarketplaceEntitlement, offerToOpportunity, referralToCosellReferral };
