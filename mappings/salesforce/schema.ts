// The custom objects and fields the Salesforce mappings and co-sell write, as `crm-sync setup` creates
// them through the Tooling API (CustomObject, CustomField). Types are the Metadata API's; each key field
// is an external id marked unique, so an upsert can never match two records.

export type SalesforceFieldType = 'Text' | 'LongTextArea' | 'Url' | 'DateTime' | 'Date' | 'Checkbox' | 'Currency' | 'Number' | 'Picklist' | 'Lookup';

export type SalesforceCustomField = {
  object: string;
  name: string;
  label: string;
  type: SalesforceFieldType;
  length?: number;
  externalId?: boolean;
  unique?: boolean;
  values?: string[];
  /** Picklist: only the listed values are accepted (a restricted picklist). */
  restricted?: boolean;
  referenceTo?: string;
  /** A formula field (read-only, computed by Salesforce when read); the sync never writes it. */
  formula?: string;
  /** Number: total digits and decimal places. */
  precision?: number;
  scale?: number;
  relationshipName?: string;
  relationshipLabel?: string;
  /**
   * Where the Metadata API defines the field when not on `object`: custom fields of activities are made
   * on Activity and appear on Task and Event (FullName Activity.<name>).
   */
  definedOn?: string;
};

export type SalesforceCustomObject = { name: string; label: string; pluralLabel: string };

import { LIVE_AGREEMENT_FIELDS, RENEWAL_FIELDS } from './renewal-schema.ts';
import { USAGE_CUSTOM_FIELDS, USAGE_CUSTOM_OBJECTS } from './usage-schema.ts';

/** Whole days from now until the entitlement ends (negative once it has ended); blank for an open-ended one. */
export const DAYS_TO_END_FORMULA = 'IF(ISBLANK(End_Date__c), NULL, FLOOR(End_Date__c - NOW()))';

const MARKETPLACES = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];

/** The project's objects the timeline's Tasks name by WhatId (issue #27): made with Allow Activities. */
export const TIMELINE_ACTIVITY_OBJECTS = ['Marketplace_Entitlement__c', 'Cosell_Referral__c'];

export const SALESFORCE_CUSTOM_OBJECTS: SalesforceCustomObject[] = [
  { name: 'Marketplace_Entitlement__c', label: 'Marketplace Entitlement', pluralLabel: 'Marketplace Entitlements' },
  { name: 'Cosell_Referral__c', label: 'Cosell Referral', pluralLabel: 'Cosell Referrals' },
  // Usage by day (issue #25 section 4): mappings/salesforce/usage-schema.ts.
  ...USAGE_CUSTOM_OBJECTS,
];

const key = (object: string, name: string, label: string): SalesforceCustomField => ({ object, name, label, type: 'Text', length: 64, externalId: true, unique: true });
const text = (object: string, name: string, label: string, length: number): SalesforceCustomField => ({ object, name, label, type: 'Text', length });
const currency = (object: string, name: string, label: string): SalesforceCustomField => ({ object, name, label, type: 'Currency' });
const lookup = (object: string, name: string, label: string, referenceTo: string, relationshipName: string): SalesforceCustomField => ({
  object,
  name,
  label,
  type: 'Lookup',
  referenceTo,
  relationshipName,
  relationshipLabel: relationshipName.replaceAll('_', ' '),
});

export const SALESFORCE_CUSTOM_FIELDS: SalesforceCustomField[] = [
  key('Account', 'Commerce_Buyer_Id__c', 'Commerce Buyer Id'),
  text('Account', 'Marketplace__c', 'Marketplace', 40),
  text('Account', 'Marketplace_Account_Id__c', 'Marketplace Account Id', 255),
  { object: 'Account', name: 'Marketplace_Status__c', label: 'Marketplace Status', type: 'Picklist', values: ['Active', 'Deleted'] },

  key('Contact', 'Commerce_Contact_Id__c', 'Commerce Contact Id'),

  key('Opportunity', 'Commerce_Offer_Id__c', 'Commerce Offer Id'),
  text('Opportunity', 'Marketplace__c', 'Marketplace', 40),
  text('Opportunity', 'Offer_Type__c', 'Offer Type', 40),
  text('Opportunity', 'Offer_Status__c', 'Offer Status', 40),
  { object: 'Opportunity', name: 'Offer_URL__c', label: 'Offer URL', type: 'Url' },
  { object: 'Opportunity', name: 'Offer_Expiration__c', label: 'Offer Expiration', type: 'DateTime' },
  { object: 'Opportunity', name: 'Cosell_Share__c', label: 'Cosell Share', type: 'Checkbox' },
  { object: 'Opportunity', name: 'Cosell_Partner__c', label: 'Cosell Partner', type: 'Picklist', values: MARKETPLACES },
  { object: 'Opportunity', name: 'Commerce_Referral_Id__c', label: 'Commerce Referral Id', type: 'Text', length: 255, externalId: true, unique: true },
  text('Opportunity', 'Cosell_Status__c', 'Cosell Status', 40),
  text('Opportunity', 'Cosell_Stage__c', 'Cosell Stage', 80),
  { object: 'Opportunity', name: 'Cosell_Errors__c', label: 'Cosell Errors', type: 'LongTextArea', length: 32768 },
  // The private-offer draft's own reasons, so the referral's (Cosell_Errors__c) and the draft's never erase each other.
  { object: 'Opportunity', name: 'Cosell_Draft_Errors__c', label: 'Cosell Draft Errors', type: 'LongTextArea', length: 32768 },
  { object: 'Opportunity', name: 'Private_Offer_Requested__c', label: 'Private Offer Requested', type: 'Checkbox' },
  text('Opportunity', 'Commerce_Product_Id__c', 'Commerce Product Id', 255),
  // A private offer from the Opportunity's products (issue #28; docs/cosell.md): its duration (marketplace A),
  // payment schedule (one charge a line, "YYYY-MM-DD amount"), a deal desk's approval (the values a
  // connection's rule may name), when the worker published it once approved, a new expiry and a cancel request.
  { object: 'Opportunity', name: 'Offer_Duration_Months__c', label: 'Offer Duration Months', type: 'Number', precision: 3, scale: 0 },
  { object: 'Opportunity', name: 'Offer_Payment_Schedule__c', label: 'Offer Payment Schedule', type: 'LongTextArea', length: 32768 },
  { object: 'Opportunity', name: 'Offer_Approval_Status__c', label: 'Offer Approval Status', type: 'Picklist', values: ['Pending', 'Approved', 'Rejected'] },
  text('Opportunity', 'Offer_Approved_By__c', 'Offer Approved By', 255),
  { object: 'Opportunity', name: 'Offer_Approved_At__c', label: 'Offer Approved At', type: 'DateTime' },
  { object: 'Opportunity', name: 'Offer_New_Expiry_Date__c', label: 'Offer New Expiry Date', type: 'Date' },
  { object: 'Opportunity', name: 'Offer_Cancel_Requested__c', label: 'Offer Cancel Requested', type: 'Checkbox' },
  // The referral's lifecycle from the CRM (issue #24): an optional second signal to submit, the seller's
  // decision on an inbound referral and its reason, and when the partner's review of a submission ends.
  { object: 'Opportunity', name: 'Cosell_Submit__c', label: 'Cosell Submit', type: 'Checkbox' },
  // Restricted: a value outside the two is refused by Salesforce, so the sync never meets one.
  { object: 'Opportunity', name: 'Cosell_Decision__c', label: 'Cosell Decision', type: 'Picklist', values: ['Accept', 'Reject'], restricted: true },
  text('Opportunity', 'Cosell_Decision_Reason__c', 'Cosell Decision Reason', 255),
  { object: 'Opportunity', name: 'Cosell_Review_Ends__c', label: 'Cosell Review Ends', type: 'DateTime' },

  key('Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c', 'Commerce Entitlement Id'),
  lookup('Marketplace_Entitlement__c', 'Account__c', 'Account', 'Account', 'Marketplace_Entitlements'),
  lookup('Marketplace_Entitlement__c', 'Opportunity__c', 'Opportunity', 'Opportunity', 'Marketplace_Entitlements'),
  text('Marketplace_Entitlement__c', 'Status__c', 'Status', 40),
  { object: 'Marketplace_Entitlement__c', name: 'Start_Date__c', label: 'Start Date', type: 'DateTime' },
  { object: 'Marketplace_Entitlement__c', name: 'End_Date__c', label: 'End Date', type: 'DateTime' },
  currency('Marketplace_Entitlement__c', 'Commit_Amount__c', 'Commit Amount'),
  currency('Marketplace_Entitlement__c', 'Used_Commit_Amount__c', 'Used Commit Amount'),
  currency('Marketplace_Entitlement__c', 'Credit_Amount__c', 'Credit Amount'),
  currency('Marketplace_Entitlement__c', 'Used_Credit_Amount__c', 'Used Credit Amount'),
  currency('Marketplace_Entitlement__c', 'Annualized_Amount__c', 'Annualized Amount'),
  text('Marketplace_Entitlement__c', 'Currency__c', 'Currency', 3),
  text('Marketplace_Entitlement__c', 'Marketplace__c', 'Marketplace', 40),
  text('Marketplace_Entitlement__c', 'Marketplace_Agreement_Id__c', 'Marketplace Agreement Id', 255),
  text('Marketplace_Entitlement__c', 'Marketplace_Subscription_Id__c', 'Marketplace Subscription Id', 255),
  text('Marketplace_Entitlement__c', 'Product_Id__c', 'Product Id', 255),
  text('Marketplace_Entitlement__c', 'Offer_Id__c', 'Offer Id', 64),
  // Revenue and agreement (issue #25 section 2).
  currency('Marketplace_Entitlement__c', 'Invoiced_Amount__c', 'Invoiced Amount'),
  currency('Marketplace_Entitlement__c', 'Gross_Amount__c', 'Gross Amount'),
  currency('Marketplace_Entitlement__c', 'Collectable_Amount__c', 'Collectable Amount'),
  currency('Marketplace_Entitlement__c', 'Disbursed_Amount__c', 'Disbursed Amount'),
  currency('Marketplace_Entitlement__c', 'Reported_Amount__c', 'Reported Amount'),
  { object: 'Marketplace_Entitlement__c', name: 'Net_Terms_Days__c', label: 'Net Terms (Days)', type: 'Number', precision: 5, scale: 0 },
  { object: 'Marketplace_Entitlement__c', name: 'Auto_Renew__c', label: 'Auto Renew', type: 'Checkbox' },
  text('Marketplace_Entitlement__c', 'Agreement_Status__c', 'Agreement Status', 40),
  { object: 'Marketplace_Entitlement__c', name: 'Agreement_PDF_URL__c', label: 'Agreement PDF URL', type: 'Url' },
  // Where the PDF link is signed and expiring: the URL is not stored, this says the PDF exists.
  text('Marketplace_Entitlement__c', 'Agreement_PDF_Note__c', 'Agreement PDF Note', 255),
  text('Marketplace_Entitlement__c', 'Initial_Agreement_Id__c', 'Initial Agreement Id', 255),
  { object: 'Marketplace_Entitlement__c', name: 'Payment_Installments__c', label: 'Payment Installments', type: 'LongTextArea', length: 32768 },
  // Counted by Salesforce whenever it is read: a number the sync wrote would be wrong the next day.
  { object: 'Marketplace_Entitlement__c', name: 'Days_To_End__c', label: 'Days To End', type: 'Number', precision: 18, scale: 0, formula: DAYS_TO_END_FORMULA },

  key('Cosell_Referral__c', 'Commerce_Referral_Id__c', 'Commerce Referral Id'),
  lookup('Cosell_Referral__c', 'Opportunity__c', 'Opportunity', 'Opportunity', 'Cosell_Referrals'),
  text('Cosell_Referral__c', 'Stage__c', 'Stage', 40),
  text('Cosell_Referral__c', 'Status__c', 'Status', 40),
  text('Cosell_Referral__c', 'Partner__c', 'Partner', 40),
  text('Cosell_Referral__c', 'Direction__c', 'Direction', 20),
  currency('Cosell_Referral__c', 'Deal_Value__c', 'Deal Value'),
  text('Cosell_Referral__c', 'Currency__c', 'Currency', 3),
  { object: 'Cosell_Referral__c', name: 'Expected_Close_Date__c', label: 'Expected Close Date', type: 'Date' },
  // Renewals (issue #25 section 3): mappings/salesforce/renewal-schema.ts.
  ...RENEWAL_FIELDS,
  ...LIVE_AGREEMENT_FIELDS,
  // Usage by day (issue #25 section 4): mappings/salesforce/usage-schema.ts.
  ...USAGE_CUSTOM_FIELDS,
  // The timeline (issue #27 section 1): each Task's notification event, its upsert key. External ID, not
  // Unique: exactly once rests on the upsert by this key and the record_links row (docs/timeline.md).
  { object: 'Task', definedOn: 'Activity', name: 'Commerce_Event_Id__c', label: 'Commerce Event Id', type: 'Text', length: 64, externalId: true },
];

/** The Metadata API's definition of a field, as the Tooling API's CustomField takes it. */
export function customFieldMetadata(field: SalesforceCustomField): Record<string, unknown> {
  const base = { label: field.label, type: field.type, ...(field.externalId && { externalId: true }), ...(field.unique && { unique: true }) };
  switch (field.type) {
    case 'Text':
      return { ...base, length: field.length ?? 255 };
    case 'LongTextArea':
      return { ...base, length: field.length ?? 32768, visibleLines: 5 };
    case 'Currency':
      return { ...base, precision: 18, scale: 2 };
    case 'Number':
      return { ...base, precision: field.precision ?? 18, scale: field.scale ?? 0, ...(field.formula && { formula: field.formula, formulaTreatBlanksAs: 'BlankAsBlank' }) };
    case 'Checkbox':
      return { ...base, defaultValue: 'false' };
    case 'Picklist':
      return { ...base, valueSet: { restricted: field.restricted === true, valueSetDefinition: { sorted: false, value: (field.values ?? []).map((value) => ({ fullName: value, label: value, default: false })) } } };
    case 'Lookup':
      return { ...base, referenceTo: field.referenceTo, relationshipName: field.relationshipName, relationshipLabel: field.relationshipLabel, deleteConstraint: 'SetNull' };
    default:
      return base;
  }
}

/** What describe calls each Metadata API type (a field found with another type does not fit). */
export const DESCRIBE_TYPES: Record<SalesforceFieldType, string[]> = {
  Text: ['string'],
  LongTextArea: ['textarea'],
  Url: ['url'],
  DateTime: ['datetime'],
  Date: ['date'],
  Checkbox: ['boolean'],
  Currency: ['currency', 'double'],
  Number: ['double', 'int'],
  Picklist: ['picklist'],
  Lookup: ['reference'],
};
