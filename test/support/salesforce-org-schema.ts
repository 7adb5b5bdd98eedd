// The six objects of the Salesforce org the sync writes, written down by hand from the Salesforce
// sandbox's org (sandbox/salesforce/schema.ts), not imported from it and never derived from a mapping:
// a mapping field the org lacks must fail against this list as it fails against the real org.
// System fields (Id, IsDeleted, CreatedDate, LastModifiedDate, SystemModstamp) are neither createable
// nor updateable.
import type { FieldSchema, ObjectSchema } from '../../crm/connector.ts';

export type OrgField = {
  name: string;
  /** Salesforce's label: its error texts name fields by it ("Name: data value too large: ..."). */
  label: string;
  type: 'id' | 'boolean' | 'string' | 'textarea' | 'url' | 'email' | 'phone' | 'picklist' | 'date' | 'datetime' | 'currency' | 'double' | 'reference';
  length?: number;
  required?: boolean;
  externalId?: boolean;
  system?: boolean;
  /** Createable, not updateable: set when the record is made (OpportunityContactRole.OpportunityId). */
  createOnly?: boolean;
  picklistValues?: string[];
  restrictedPicklist?: boolean;
  referenceTo?: string;
  relationshipName?: string;
};

const system = (own: OrgField[], idLabel: string): OrgField[] => [
  { name: 'Id', label: idLabel, type: 'id', length: 18, system: true },
  { name: 'IsDeleted', label: 'Deleted', type: 'boolean', system: true },
  ...own,
  { name: 'CreatedDate', label: 'Created Date', type: 'datetime', system: true },
  { name: 'LastModifiedDate', label: 'Last Modified Date', type: 'datetime', system: true },
  { name: 'SystemModstamp', label: 'System Modstamp', type: 'datetime', system: true },
];
const text = (name: string, label: string, length: number, extra: Partial<OrgField> = {}): OrgField => ({ name, label, type: 'string', length, ...extra });
const key = (name: string, label: string): OrgField => text(name, label, 64, { externalId: true });
const currency = (name: string, label: string): OrgField => ({ name, label, type: 'currency' });
const datetime = (name: string, label: string): OrgField => ({ name, label, type: 'datetime' });
const reference = (name: string, label: string, referenceTo: string, relationshipName: string, extra: Partial<OrgField> = {}): OrgField => ({ name, label, type: 'reference', length: 18, referenceTo, relationshipName, ...extra });

const STAGES = ['Prospecting', 'Qualification', 'Needs Analysis', 'Value Proposition', 'Id. Decision Makers', 'Perception Analysis', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost'];

export const ORG_OBJECTS: Record<string, { keyPrefix: string; fields: OrgField[] }> = {
  Account: {
    keyPrefix: '001',
    fields: system([
      text('Name', 'Account Name', 255, { required: true }),
      key('Commerce_Buyer_Id__c', 'Commerce Buyer Id'),
      text('Marketplace__c', 'Marketplace', 40),
      text('Marketplace_Account_Id__c', 'Marketplace Account Id', 255),
      text('BillingCountry', 'Billing Country', 80),
      { name: 'Website', label: 'Website', type: 'url', length: 255 },
      { name: 'Marketplace_Status__c', label: 'Marketplace Status', type: 'picklist', length: 255, picklistValues: ['Active', 'Deleted'] },
      { name: 'Description', label: 'Account Description', type: 'textarea', length: 32000 },
    ], 'Account ID'),
  },
  Contact: {
    keyPrefix: '003',
    fields: system([
      text('LastName', 'Last Name', 80, { required: true }),
      text('FirstName', 'First Name', 40),
      { name: 'Email', label: 'Email', type: 'email', length: 80 },
      { name: 'Phone', label: 'Business Phone', type: 'phone', length: 40 },
      text('Title', 'Title', 128),
      reference('AccountId', 'Account ID', 'Account', 'Account'),
      key('Commerce_Contact_Id__c', 'Commerce Contact Id'),
    ], 'Contact ID'),
  },
  Opportunity: {
    keyPrefix: '006',
    fields: system([
      text('Name', 'Name', 120, { required: true }),
      { name: 'StageName', label: 'Stage', type: 'picklist', length: 255, required: true, picklistValues: STAGES, restrictedPicklist: true },
      { name: 'CloseDate', label: 'Close Date', type: 'date', required: true },
      currency('Amount', 'Amount'),
      reference('AccountId', 'Account ID', 'Account', 'Account'),
      key('Commerce_Offer_Id__c', 'Commerce Offer Id'),
      text('Marketplace__c', 'Marketplace', 40),
      text('Offer_Type__c', 'Offer Type', 40),
      text('Offer_Status__c', 'Offer Status', 40),
      { name: 'Offer_URL__c', label: 'Offer URL', type: 'url', length: 255 },
      datetime('Offer_Expiration__c', 'Offer Expiration'),
      { name: 'Description', label: 'Description', type: 'textarea', length: 32000 },
      // Co-sell from the CRM (checkboxes default to false: never null).
      { name: 'Cosell_Share__c', label: 'Cosell Share', type: 'boolean' },
      { name: 'Cosell_Partner__c', label: 'Cosell Partner', type: 'picklist', length: 255, picklistValues: ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'] },
      text('Commerce_Referral_Id__c', 'Commerce Referral Id', 255, { externalId: true }),
      text('Cosell_Status__c', 'Cosell Status', 40),
      text('Cosell_Stage__c', 'Cosell Stage', 80),
      { name: 'Cosell_Errors__c', label: 'Cosell Errors', type: 'textarea', length: 32768 },
      { name: 'Cosell_Draft_Errors__c', label: 'Cosell Draft Errors', type: 'textarea', length: 32768 },
      { name: 'Private_Offer_Requested__c', label: 'Private Offer Requested', type: 'boolean' },
      text('Commerce_Product_Id__c', 'Commerce Product Id', 255),
      // The referral's lifecycle (issue #24).
      { name: 'Cosell_Submit__c', label: 'Cosell Submit', type: 'boolean' },
      { name: 'Cosell_Decision__c', label: 'Cosell Decision', type: 'picklist', length: 255, picklistValues: ['Accept', 'Reject'], restrictedPicklist: true },
      text('Cosell_Decision_Reason__c', 'Cosell Decision Reason', 255),
      datetime('Cosell_Review_Ends__c', 'Cosell Review Ends'),
    ], 'Opportunity ID'),
  },
  Marketplace_Entitlement__c: {
    keyPrefix: 'a0E',
    fields: system([
      text('Name', 'Marketplace Entitlement Name', 80, { required: true }),
      key('Commerce_Entitlement_Id__c', 'Commerce Entitlement Id'),
      reference('Account__c', 'Account', 'Account', 'Account__r'),
      reference('Opportunity__c', 'Opportunity', 'Opportunity', 'Opportunity__r'),
      text('Status__c', 'Status', 40),
      datetime('Start_Date__c', 'Start Date'),
      datetime('End_Date__c', 'End Date'),
      currency('Commit_Amount__c', 'Commit Amount'),
      currency('Used_Commit_Amount__c', 'Used Commit Amount'),
      currency('Credit_Amount__c', 'Credit Amount'),
      currency('Used_Credit_Amount__c', 'Used Credit Amount'),
      currency('Annualized_Amount__c', 'Annualized Amount'),
      text('Currency__c', 'Currency', 3),
      text('Marketplace__c', 'Marketplace', 40),
      text('Marketplace_Agreement_Id__c', 'Marketplace Agreement Id', 255),
      text('Marketplace_Subscription_Id__c', 'Marketplace Subscription Id', 255),
      text('Product_Id__c', 'Product Id', 255),
      text('Offer_Id__c', 'Offer Id', 64),
      currency('Invoiced_Amount__c', 'Invoiced Amount'),
      currency('Gross_Amount__c', 'Gross Amount'),
      currency('Collectable_Amount__c', 'Collectable Amount'),
      currency('Disbursed_Amount__c', 'Disbursed Amount'),
      currency('Reported_Amount__c', 'Reported Amount'),
      { name: 'Net_Terms_Days__c', label: 'Net Terms (Days)', type: 'double' },
      { name: 'Auto_Renew__c', label: 'Auto Renew', type: 'boolean' },
      text('Agreement_Status__c', 'Agreement Status', 40),
      { name: 'Agreement_PDF_URL__c', label: 'Agreement PDF URL', type: 'url', length: 255 },
      text('Agreement_PDF_Note__c', 'Agreement PDF Note', 255),
      text('Initial_Agreement_Id__c', 'Initial Agreement Id', 255),
      { name: 'Payment_Installments__c', label: 'Payment Installments', type: 'textarea', length: 32768 },
      // A formula field: computed by Salesforce, never written (read-only like a system field).
      { name: 'Days_To_End__c', label: 'Days To End', type: 'double', system: true },
    ], 'Record ID'),
  },
  Cosell_Referral__c: {
    keyPrefix: 'a0R',
    fields: system([
      text('Name', 'Cosell Referral Name', 80, { required: true }),
      key('Commerce_Referral_Id__c', 'Commerce Referral Id'),
      reference('Opportunity__c', 'Opportunity', 'Opportunity', 'Opportunity__r'),
      text('Stage__c', 'Stage', 40),
      text('Status__c', 'Status', 40),
      text('Partner__c', 'Partner', 40),
      text('Direction__c', 'Direction', 20),
      currency('Deal_Value__c', 'Deal Value'),
      text('Currency__c', 'Currency', 3),
      { name: 'Expected_Close_Date__c', label: 'Expected Close Date', type: 'date' },
    ], 'Record ID'),
  },
  // Salesforce's standard junction: no external id, and the same (OpportunityId, ContactId) may repeat.
  OpportunityContactRole: {
    keyPrefix: '00K',
    fields: system([
      reference('OpportunityId', 'Opportunity', 'Opportunity', 'Opportunity', { required: true, createOnly: true }),
      reference('ContactId', 'Contact', 'Contact', 'Contact', { required: true }),
      { name: 'Role', label: 'Role', type: 'picklist', length: 40, picklistValues: ['Business User', 'Decision Maker', 'Economic Buyer', 'Economic Decision Maker', 'Evaluator', 'Executive Sponsor', 'Influencer', 'Technical Buyer', 'Other'] },
      { name: 'IsPrimary', label: 'Primary', type: 'boolean' },
    ], 'Contact Role ID'),
  },
};

export function orgObject(object: string) {
  const found = ORG_OBJECTS[object];
  if (!found) throw new Error(`The test org has no object ${object}`);
  return found;
}

/** The field a relationship name stands for (Account -> AccountId, Opportunity__r -> Opportunity__c). */
export function relationshipField(object: string, relationshipName: string): OrgField | undefined {
  return orgObject(object).fields.find((field) => field.relationshipName === relationshipName);
}

/** What a connector's describe() answers for the object, as Salesforce's describe reports it. */
export function describeOrgObject(object: string): ObjectSchema {
  const fields = new Map<string, FieldSchema>();
  for (const field of orgObject(object).fields) {
    fields.set(field.name, {
      name: field.name,
      type: field.type,
      length: field.length,
      required: Boolean(field.required),
      createable: !field.system,
      updateable: !field.system && !field.createOnly,
      externalId: Boolean(field.externalId),
      unique: Boolean(field.externalId),
      picklistValues: field.picklistValues,
      restrictedPicklist: field.restrictedPicklist,
      referenceTo: field.referenceTo ? [field.referenceTo] : undefined,
      relationshipName: field.relationshipName,
    });
  }
  return { name: object, fields };
}
