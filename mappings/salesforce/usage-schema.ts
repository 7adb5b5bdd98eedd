// The usage object (issue #25 section 4) as `crm-sync setup` creates it: one record per entitlement,
// dimension and day, keyed by Commerce_Usage_Key__c (entitlement|dimension|date), looking up its
// Marketplace_Entitlement__c; and the entitlement's usage summary fields. Appended to the object and
// field lists of schema.ts.
import type { SalesforceCustomField, SalesforceCustomObject } from './schema.ts';

const OBJECT = 'Marketplace_Usage__c';
const ENTITLEMENT = 'Marketplace_Entitlement__c';

export const USAGE_CUSTOM_OBJECTS: SalesforceCustomObject[] = [{ name: OBJECT, label: 'Marketplace Usage', pluralLabel: 'Marketplace Usage' }];

export const USAGE_CUSTOM_FIELDS: SalesforceCustomField[] = [
  // entitlement id, dimension key and date: longer than the 64 characters of the other keys.
  { object: OBJECT, name: 'Commerce_Usage_Key__c', label: 'Commerce Usage Key', type: 'Text', length: 255, externalId: true, unique: true },
  { object: OBJECT, name: 'Entitlement__c', label: 'Entitlement', type: 'Lookup', referenceTo: 'Marketplace_Entitlement__c', relationshipName: 'Marketplace_Usage', relationshipLabel: 'Marketplace Usage' },
  { object: OBJECT, name: 'Dimension__c', label: 'Dimension', type: 'Text', length: 255 },
  { object: OBJECT, name: 'Usage_Date__c', label: 'Usage Date', type: 'Date' },
  { object: OBJECT, name: 'Quantity__c', label: 'Quantity', type: 'Number', precision: 18, scale: 6 },
  { object: OBJECT, name: 'Amount__c', label: 'Amount', type: 'Currency' },
  { object: OBJECT, name: 'Failed_Reports__c', label: 'Failed Reports', type: 'Number', precision: 9, scale: 0 },
  // The entitlement's usage so far (mappings/salesforce/usage-summary.ts): the burn-down in % (above 100 past the commit).
  { object: ENTITLEMENT, name: 'Usage_Amount__c', label: 'Usage Amount', type: 'Currency' },
  { object: ENTITLEMENT, name: 'Commit_Burn_Down__c', label: 'Commit Burn Down (%)', type: 'Number', precision: 9, scale: 2 },
  { object: ENTITLEMENT, name: 'Last_Usage_Date__c', label: 'Last Usage Date', type: 'Date' },
  { object: ENTITLEMENT, name: 'Failed_Usage_Reports__c', label: 'Failed Usage Reports', type: 'Number', precision: 9, scale: 0 },
];
