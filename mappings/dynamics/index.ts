// The default Dynamics 365 (Dataverse) mappings, one per entity (mappings/dynamics/README.md); the
// inbound-referral mapping, the co-sell sides, the stage tables and the schema setup creates.
import { buyerToAccount } from './account.ts';
import { contactToDynamicsContact } from './contact.ts';
import { entitlementToDynamicsEntitlement } from './entitlement.ts';
import { OFFER_STATUS_TO_STATE, OFFER_STATUS_TO_STEP, offerToOpportunity } from './opportunity.ts';
import { inboundReferralToOpportunity, referralToCosellReferral } from './referral.ts';

export const DYNAMICS_MAPPINGS = {
  buyer: buyerToAccount,
  contact: contactToDynamicsContact,
  offer: offerToOpportunity,
  entitlement: entitlementToDynamicsEntitlement,
  referral: referralToCosellReferral,
} as const;

export { buyerToAccount, contactToDynamicsContact, entitlementToDynamicsEntitlement, inboundReferralToOpportunity, OFFER_STATUS_TO_STATE, OFFER_STATUS_TO_STEP, offerToOpportunity, referralToCosellReferral };
export { COSELL_STAGE_TO_STATE, COSELL_TO_DYNAMICS_STAGE, DYNAMICS_STEPS, DYNAMICS_TO_COSELL_STAGE } from './stages.ts';
export { DYNAMICS_TABLES, dynamicsTable, NAVIGATION_PROPERTIES, PUBLISHER_PREFIX } from './schema.ts';
export type { ColumnDeclaration, ColumnType, KeyDeclaration, LookupDeclaration, TableDeclaration } from './schema.ts';
export {
  DYNAMICS_DEFAULT_SHARE_RULE,
  isOpportunityShared,
  opportunityDraftOfferSide,
  opportunityReferralSide,
  opportunityRelations,
  opportunityToDraftOffer,
  opportunityToReferral,
} from './opportunity-cosell.ts';
export type { DynamicsDraftOfferRequest, DynamicsReferralRequest, OpportunityRelations } from './opportunity-cosell.ts';
