// The default HubSpot mappings, one per entity (entitlements: the custom object, or line items where the
// account has no custom objects).
import { buyerToCompany } from './company.ts';
import { contactToHubSpotContact } from './contact.ts';
import { offerToDeal } from './deal.ts';
import { entitlementToHubSpotEntitlement, entitlementToLineItem } from './entitlement.ts';
import { inboundReferralToDeal, referralToDeal } from './referral.ts';

export const HUBSPOT_MAPPINGS = {
  buyer: buyerToCompany,
  contact: contactToHubSpotContact,
  offer: offerToDeal,
  entitlement: entitlementToHubSpotEntitlement,
  referral: referralToDeal,
} as const;

export { buyerToCompany, contactToHubSpotContact, entitlementToHubSpotEntitlement, entitlementToLineItem, inboundReferralToDeal, offerToDeal, referralToDeal };
