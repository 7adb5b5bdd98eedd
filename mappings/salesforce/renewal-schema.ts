// The renewal opportunity's fields (issue #25 section 3), as `crm-sync setup` creates them: its key,
// its lookups to the entitlement it renews and to the one that renewed it, and the renewal offer's id;
// and the Account's live-agreement mark.
import type { SalesforceCustomField } from './schema.ts';

const entitlementLookup = (name: string, label: string, relationshipName: string): SalesforceCustomField => ({
  object: 'Opportunity',
  name,
  label,
  type: 'Lookup',
  referenceTo: 'Marketplace_Entitlement__c',
  relationshipName,
  relationshipLabel: relationshipName.replaceAll('_', ' '),
});

export const RENEWAL_FIELDS: SalesforceCustomField[] = [
  { object: 'Opportunity', name: 'Commerce_Renewal_Key__c', label: 'Commerce Renewal Key', type: 'Text', length: 80, externalId: true, unique: true },
  entitlementLookup('Renewal_Of_Entitlement__c', 'Renewal Of Entitlement', 'Renewal_Opportunities'),
  entitlementLookup('Renewal_Entitlement__c', 'Renewal Entitlement', 'Renewing_Opportunities'),
  { object: 'Opportunity', name: 'Renewal_Offer_Id__c', label: 'Renewal Offer Id', type: 'Text', length: 64 },
  // The entitlement's side: its renewal opportunity (flows/renewal-links.ts).
  { object: 'Marketplace_Entitlement__c', name: 'Renewal_Opportunity__c', label: 'Renewal Opportunity', type: 'Lookup', referenceTo: 'Opportunity', relationshipName: 'Renewed_Entitlements', relationshipLabel: 'Renewed Entitlements' },
  // The renewing entitlement's side: the entitlement it renews (flows/previous-entitlement-links.ts).
  { object: 'Marketplace_Entitlement__c', name: 'Previous_Entitlement__c', label: 'Previous Entitlement', type: 'Lookup', referenceTo: 'Marketplace_Entitlement__c', relationshipName: 'Renewing_Entitlements', relationshipLabel: 'Renewing Entitlements' },
];

/** The Account's mark: the buyer has a live marketplace agreement (flows/live-agreement.ts). */
export const LIVE_AGREEMENT_FIELDS: SalesforceCustomField[] = [{ object: 'Account', name: 'Has_Live_Marketplace_Agreement__c', label: 'Has Live Marketplace Agreement', type: 'Checkbox' }];
