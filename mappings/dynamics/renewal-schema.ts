// The renewal opportunity's columns, lookups and key on Dataverse's opportunity table, and the account's
// live-agreement mark (issue #25 section 3), as `crm-sync setup` creates them.
import type { ColumnDeclaration, KeyDeclaration, LookupDeclaration } from './schema.ts';

export const RENEWAL_OPPORTUNITY_COLUMNS: ColumnDeclaration[] = [
  { logicalName: 'ccs_commercerenewalkey', label: 'Commerce Renewal Key', type: 'String', maxLength: 100 },
  { logicalName: 'ccs_renewalofferid', label: 'Renewal Offer Id', type: 'String', maxLength: 100 },
];
export const RENEWAL_OPPORTUNITY_LOOKUPS: LookupDeclaration[] = [
  { logicalName: 'ccs_renewalofentitlementid', label: 'Renewal Of Entitlement', target: 'ccs_marketplaceentitlement' },
  { logicalName: 'ccs_renewalentitlementid', label: 'Renewal Entitlement', target: 'ccs_marketplaceentitlement' },
];
export const RENEWAL_OPPORTUNITY_KEYS: KeyDeclaration[] = [{ logicalName: 'ccs_commercerenewalkey_key', label: 'Commerce Renewal Key', columns: ['ccs_commercerenewalkey'] }];

/** The account's mark: the buyer has a live marketplace agreement (flows/live-agreement.ts). */
export const LIVE_AGREEMENT_ACCOUNT_COLUMNS: ColumnDeclaration[] = [{ logicalName: 'ccs_haslivemarketplaceagreement', label: 'Has Live Marketplace Agreement', type: 'Boolean' }];

/**
 * The entitlement's side: its renewal opportunity (flows/renewal-links.ts) and, on a renewing
 * entitlement, the entitlement it renews (flows/previous-entitlement-links.ts).
 */
export const RENEWAL_ENTITLEMENT_LOOKUPS: LookupDeclaration[] = [
  { logicalName: 'ccs_renewalopportunityid', label: 'Renewal Opportunity', target: 'opportunity' },
  { logicalName: 'ccs_previousentitlementid', label: 'Previous Entitlement', target: 'ccs_marketplaceentitlement' },
];
