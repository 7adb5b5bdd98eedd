// The sandbox org's objects and fields (what `describe` reports and what writes are validated
// against). Field kinds and limits follow Salesforce's describe vocabulary.

import { currentOrgView } from './org-context.ts';

export type FieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'url'
  | 'email'
  | 'phone'
  | 'picklist'
  | 'date'
  | 'datetime'
  | 'currency'
  | 'double' // a Number field: numeric like currency, without a currency
  | 'boolean'
  | 'reference';

export type SandboxField = {
  name: string;
  label: string;
  type: FieldType;
  length: number; // characters for text kinds, 0 otherwise
  precision: number; // total digits for currency
  scale: number; // decimal places for currency (values are rounded to it)
  required: boolean; // nillable false and not defaulted: creates must set it
  externalId: boolean;
  unique: boolean;
  idLookup: boolean;
  picklistValues: string[];
  restrictedPicklist: boolean;
  referenceTo: string[];
  relationshipName: string | null;
  system: boolean; // maintained by the sandbox: neither createable nor updateable
  /** Createable but not updateable: set when the record is made, never changed after (OpportunityContactRole.OpportunityId). */
  createOnly: boolean;
  custom: boolean;
  /**
   * What a create that leaves the field out stores: a checkbox's default, a multi-currency org's
   * CurrencyIsoCode its user's currency (currencies.ts); null for every other kind.
   */
  defaultValue: boolean | string | null;
  /** Visible to the integration user but not editable: its permission sets grant read without edit (field-access.ts). */
  readOnlyByPermission?: boolean;
  /** A formula field: computed when read (formulas.ts), never written, readable through a permission set but never editable. */
  formula?: string;
};

export type SandboxObject = {
  name: string;
  label: string;
  labelPlural: string;
  keyPrefix: string;
  custom: boolean;
  fields: SandboxField[];
  /** The name parents list this object under when it is not its plural label's (OpportunityLineItems, PricebookEntries). */
  childRelationshipName?: string;
};

export type FieldOptions = Partial<Omit<SandboxField, 'name' | 'label' | 'type'>>;

export function field(name: string, label: string, type: FieldType, options: FieldOptions = {}): SandboxField {
  return {
    name,
    label,
    type,
    length: 0,
    precision: 0,
    scale: 0,
    required: false,
    externalId: false,
    unique: false,
    idLookup: false,
    picklistValues: [],
    restrictedPicklist: false,
    referenceTo: [],
    relationshipName: null,
    system: false,
    createOnly: false,
    custom: name.endsWith('__c'),
    defaultValue: null,
    ...options,
  };
}

const text = (name: string, label: string, length: number, options: FieldOptions = {}) => field(name, label, 'string', { length, ...options });
const externalKey = (name: string, label: string) => text(name, label, 64, { externalId: true, unique: true, idLookup: true });
const url = (name: string, label: string) => field(name, label, 'url', { length: 255 });
const longText = (name: string, label: string, length = 32000) => field(name, label, 'textarea', { length });
/** A checkbox is never null: a create that leaves it out stores its default. */
const checkbox = (name: string, label: string, defaultValue = false) => field(name, label, 'boolean', { defaultValue });
const currency = (name: string, label: string) => field(name, label, 'currency', { precision: 18, scale: 2 });
const datetime = (name: string, label: string) => field(name, label, 'datetime');
const reference = (name: string, label: string, target: string, relationshipName: string, options: FieldOptions = {}) =>
  field(name, label, 'reference', { length: 18, referenceTo: [target], relationshipName, ...options });

/**
 * The record's owner (a User). A create that leaves it out is owned by the user who makes it: the
 * integration user (writes.ts fills it in).
 */
export const ownerField = () => reference('OwnerId', 'Owner ID', 'User', 'Owner');

/** Task.Status and Task.Priority as a new org has them (Setup, Task Fields). */
export const TASK_STATUSES = ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'];
export const TASK_PRIORITIES = ['High', 'Normal', 'Low'];
/** The objects a Task's WhatId may name here: the standard ones, and the custom objects with Allow Activities. */
export const TASK_WHAT_OBJECTS = ['Account', 'Opportunity', 'Marketplace_Entitlement__c', 'Cosell_Referral__c'];

/** Id first, then the object's own fields, then the audit fields every record carries. */
export function systemFields(idLabel: string, own: SandboxField[]): SandboxField[] {
  return [
    field('Id', idLabel, 'id', { length: 18, idLookup: true, system: true, custom: false }),
    field('IsDeleted', 'Deleted', 'boolean', { system: true, defaultValue: false }),
    ...own,
    datetime('CreatedDate', 'Created Date'),
    datetime('LastModifiedDate', 'Last Modified Date'),
    datetime('SystemModstamp', 'System Modstamp'),
  ].map((f) => (['CreatedDate', 'LastModifiedDate', 'SystemModstamp'].includes(f.name) ? { ...f, system: true } : f));
}

/** The marketplaces a seller can co-sell with (Opportunity.Cosell_Partner__c). */
export const COSELL_PARTNERS = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];

/** A seller's decision on an inbound referral (Opportunity.Cosell_Decision__c). */
export const COSELL_DECISIONS = ['Accept', 'Reject'];

/** Salesforce's standard Opportunity stages, in their sales order: the last two are the closed ones. */
export const OPPORTUNITY_STAGES = [
  'Prospecting',
  'Qualification',
  'Needs Analysis',
  'Value Proposition',
  'Id. Decision Makers',
  'Perception Analysis',
  'Proposal/Price Quote',
  'Negotiation/Review',
  'Closed Won',
  'Closed Lost',
];

/** Salesforce's standard OpportunityContactRole.Role values (the picklist is not restricted). */
export const CONTACT_ROLES = [
  'Business User',
  'Decision Maker',
  'Economic Buyer',
  'Economic Decision Maker',
  'Evaluator',
  'Executive Sponsor',
  'Influencer',
  'Technical Buyer',
  'Other',
];

/**
 * Salesforce's product catalogue (docs/crm-wire-behaviour.md, "Products, price books and opportunity
 * products"): Product2 with the project's catalogue keys, Pricebook2 (every org has one standard price
 * book: STANDARD_PRICEBOOK_ID), PricebookEntry (a product's price in one price book and currency) and
 * OpportunityLineItem (an Opportunity's product). The rules between them and the values Salesforce
 * derives (names, list prices, totals, the Opportunity's Amount) are catalogue.ts's. Standard objects of
 * every org (with Products, as the project's orgs have): beside the project's model, as the permission
 * objects are (addStandardObjects below), so an org's own records are what SALESFORCE_SANDBOX_SCHEMA holds.
 */
export const CATALOGUE_OBJECTS: SandboxObject[] = [
  {
    name: 'Product2',
    label: 'Product',
    labelPlural: 'Products',
    keyPrefix: '01t',
    custom: false,
    fields: systemFields('Product ID', [
      text('Name', 'Product Name', 255, { required: true, idLookup: true }),
      text('ProductCode', 'Product Code', 255),
      field('Description', 'Product Description', 'textarea', { length: 4000 }),
      checkbox('IsActive', 'Active'),
      field('Family', 'Product Family', 'picklist', { length: 40 }),
      // The commerce product (one Product2 per product dimension, so several share it: an external id, not unique),
      // the dimension, and the unique key of the two, "productId|dimensionKey", that catalogue upserts name.
      text('Commerce_Product_Id__c', 'Commerce Product Id', 255, { externalId: true, idLookup: true }),
      text('Commerce_Dimension_Key__c', 'Commerce Dimension Key', 255),
      text('Commerce_Price_Key__c', 'Commerce Price Key', 255, { externalId: true, unique: true, idLookup: true }),
    ]),
  },
  {
    name: 'Pricebook2',
    label: 'Price Book',
    labelPlural: 'Price Books',
    keyPrefix: '01s',
    custom: false,
    fields: systemFields('Price Book ID', [
      text('Name', 'Price Book Name', 255, { required: true, idLookup: true }),
      text('Description', 'Description', 255),
      checkbox('IsActive', 'Active'),
      // Set on the org's one standard price book only; never written.
      field('IsStandard', 'Is Standard Price Book', 'boolean', { system: true, defaultValue: false }),
    ]),
  },
  {
    name: 'PricebookEntry',
    label: 'Price Book Entry',
    labelPlural: 'Price Book Entries',
    keyPrefix: '01u',
    custom: false,
    childRelationshipName: 'PricebookEntries',
    fields: systemFields('Price Book Entry ID', [
      // Name and ProductCode mirror the product's (read-only).
      text('Name', 'Product Name', 255, { system: true }),
      reference('Pricebook2Id', 'Price Book ID', 'Pricebook2', 'Pricebook2', { required: true, createOnly: true }),
      reference('Product2Id', 'Product ID', 'Product2', 'Product2', { required: true, createOnly: true }),
      // Required unless UseStandardPrice (then it is the standard price): catalogue.ts checks it.
      currency('UnitPrice', 'List Price'),
      checkbox('IsActive', 'Active'),
      checkbox('UseStandardPrice', 'Use Standard Price'),
      text('ProductCode', 'Product Code', 255, { system: true }),
      // The project's key of a price, "productId|dimensionKey|currency" ("...|standard" in the standard price
      // book): a custom field on the entry, which Salesforce allows (docs/crm-wire-behaviour.md), upserted on.
      text('Commerce_Price_Entry_Key__c', 'Commerce Price Entry Key', 255, { externalId: true, unique: true, idLookup: true }),
    ]),
  },
  {
    name: 'OpportunityLineItem',
    label: 'Opportunity Product',
    labelPlural: 'Opportunity Products',
    keyPrefix: '00k',
    custom: false,
    childRelationshipName: 'OpportunityLineItems',
    fields: systemFields('Line Item ID', [
      reference('OpportunityId', 'Opportunity ID', 'Opportunity', 'Opportunity', { required: true, createOnly: true }),
      reference('PricebookEntryId', 'Price Book Entry ID', 'PricebookEntry', 'PricebookEntry', { required: true, createOnly: true }),
      // Derived from the price book entry and the Opportunity (read-only).
      reference('Product2Id', 'Product ID', 'Product2', 'Product2', { system: true }),
      text('Name', 'Opportunity Product Name', 376, { system: true }),
      text('ProductCode', 'Product Code', 255, { system: true }),
      field('Quantity', 'Quantity', 'double', { precision: 12, scale: 2, required: true }),
      // Sales Price or Total Price, one of them (catalogue.ts): the other is computed.
      currency('UnitPrice', 'Sales Price'),
      currency('TotalPrice', 'Total Price'),
      field('ListPrice', 'List Price', 'currency', { precision: 18, scale: 2, system: true }),
      field('ServiceDate', 'Date', 'date'),
      text('Description', 'Line Description', 255),
    ]),
  },
];

const objects: SandboxObject[] = [
  {
    name: 'Account',
    label: 'Account',
    labelPlural: 'Accounts',
    keyPrefix: '001',
    custom: false,
    fields: systemFields('Account ID', [
      text('Name', 'Account Name', 255, { required: true, idLookup: true }),
      ownerField(),
      externalKey('Commerce_Buyer_Id__c', 'Commerce Buyer Id'),
      text('Marketplace__c', 'Marketplace', 40),
      text('Marketplace_Account_Id__c', 'Marketplace Account Id', 255),
      text('BillingCountry', 'Billing Country', 80),
      url('Website', 'Website'),
      field('Marketplace_Status__c', 'Marketplace Status', 'picklist', { length: 255, picklistValues: ['Active', 'Deleted'] }),
      longText('Description', 'Account Description'),
      // The buyer has a live marketplace agreement (issue #25 section 3).
      checkbox('Has_Live_Marketplace_Agreement__c', 'Has Live Marketplace Agreement'),
    ]),
  },
  {
    name: 'Contact',
    label: 'Contact',
    labelPlural: 'Contacts',
    keyPrefix: '003',
    custom: false,
    fields: systemFields('Contact ID', [
      text('LastName', 'Last Name', 80, { required: true }),
      text('FirstName', 'First Name', 40),
      field('Email', 'Email', 'email', { length: 80, idLookup: true }),
      field('Phone', 'Business Phone', 'phone', { length: 40 }),
      text('Title', 'Title', 128),
      reference('AccountId', 'Account ID', 'Account', 'Account'),
      externalKey('Commerce_Contact_Id__c', 'Commerce Contact Id'),
    ]),
  },
  {
    name: 'Opportunity',
    label: 'Opportunity',
    labelPlural: 'Opportunities',
    keyPrefix: '006',
    custom: false,
    fields: systemFields('Opportunity ID', [
      ownerField(),
      text('Name', 'Name', 120, { required: true }),
      field('StageName', 'Stage', 'picklist', { length: 255, required: true, picklistValues: OPPORTUNITY_STAGES, restrictedPicklist: true }),
      field('CloseDate', 'Close Date', 'date', { required: true }),
      currency('Amount', 'Amount'),
      reference('AccountId', 'Account ID', 'Account', 'Account'),
      // The price book its products come from (catalogue.ts): set by the first line item when empty.
      reference('Pricebook2Id', 'Price Book ID', 'Pricebook2', 'Pricebook2'),
      externalKey('Commerce_Offer_Id__c', 'Commerce Offer Id'),
      text('Marketplace__c', 'Marketplace', 40),
      text('Offer_Type__c', 'Offer Type', 40),
      text('Offer_Status__c', 'Offer Status', 40),
      url('Offer_URL__c', 'Offer URL'),
      datetime('Offer_Expiration__c', 'Offer Expiration'),
      longText('Description', 'Description'),
      // Co-sell from the CRM: the seller shares the deal and may ask for a private-offer draft; the
      // sync writes the referral's id, status, stage and errors back.
      checkbox('Cosell_Share__c', 'Cosell Share'),
      field('Cosell_Partner__c', 'Cosell Partner', 'picklist', { length: 255, picklistValues: COSELL_PARTNERS }),
      text('Commerce_Referral_Id__c', 'Commerce Referral Id', 255, { externalId: true, unique: true, idLookup: true }),
      text('Cosell_Status__c', 'Cosell Status', 40),
      text('Cosell_Stage__c', 'Cosell Stage', 80),
      longText('Cosell_Errors__c', 'Cosell Errors', 32768),
      longText('Cosell_Draft_Errors__c', 'Cosell Draft Errors', 32768),
      checkbox('Private_Offer_Requested__c', 'Private Offer Requested'),
      text('Commerce_Product_Id__c', 'Commerce Product Id', 255),
      // A private offer from the Opportunity's products (issue #28): duration, payment schedule, approval, a new expiry, cancel.
      field('Offer_Duration_Months__c', 'Offer Duration Months', 'double', { precision: 3, scale: 0 }),
      longText('Offer_Payment_Schedule__c', 'Offer Payment Schedule', 32768),
      field('Offer_Approval_Status__c', 'Offer Approval Status', 'picklist', { length: 255, picklistValues: ['Pending', 'Approved', 'Rejected'] }),
      text('Offer_Approved_By__c', 'Offer Approved By', 255),
      datetime('Offer_Approved_At__c', 'Offer Approved At'),
      field('Offer_New_Expiry_Date__c', 'Offer New Expiry Date', 'date'),
      checkbox('Offer_Cancel_Requested__c', 'Offer Cancel Requested'),
      // The referral's lifecycle (issue #24): a second signal to submit, the seller's decision on an
      // inbound referral (a restricted picklist) and its reason, and when the partner's review ends.
      checkbox('Cosell_Submit__c', 'Cosell Submit'),
      field('Cosell_Decision__c', 'Cosell Decision', 'picklist', { length: 255, picklistValues: COSELL_DECISIONS, restrictedPicklist: true }),
      text('Cosell_Decision_Reason__c', 'Cosell Decision Reason', 255),
      datetime('Cosell_Review_Ends__c', 'Cosell Review Ends'),
      // Renewals (issue #25 section 3): the renewal's key, the entitlement it renews, the one that renewed it, the renewal offer.
      text('Commerce_Renewal_Key__c', 'Commerce Renewal Key', 80, { externalId: true, unique: true, idLookup: true }),
      reference('Renewal_Of_Entitlement__c', 'Renewal Of Entitlement', 'Marketplace_Entitlement__c', 'Renewal_Of_Entitlement__r'),
      reference('Renewal_Entitlement__c', 'Renewal Entitlement', 'Marketplace_Entitlement__c', 'Renewal_Entitlement__r'),
      text('Renewal_Offer_Id__c', 'Renewal Offer Id', 64),
    ]),
  },
  {
    name: 'Marketplace_Entitlement__c',
    label: 'Marketplace Entitlement',
    labelPlural: 'Marketplace Entitlements',
    keyPrefix: 'a0E',
    custom: true,
    fields: systemFields('Record ID', [
      text('Name', 'Marketplace Entitlement Name', 80, { required: true, custom: false, idLookup: true }),
      ownerField(),
      externalKey('Commerce_Entitlement_Id__c', 'Commerce Entitlement Id'),
      reference('Account__c', 'Account', 'Account', 'Account__r'),
      reference('Opportunity__c', 'Opportunity', 'Opportunity', 'Opportunity__r'),
      // Its renewal opportunity (issue #25 section 3).
      reference('Renewal_Opportunity__c', 'Renewal Opportunity', 'Opportunity', 'Renewal_Opportunity__r'),
      // The entitlement a renewing one renews (issue #25 section 2).
      reference('Previous_Entitlement__c', 'Previous Entitlement', 'Marketplace_Entitlement__c', 'Previous_Entitlement__r'),
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
      // Revenue and agreement (issue #25 section 2).
      currency('Invoiced_Amount__c', 'Invoiced Amount'),
      currency('Gross_Amount__c', 'Gross Amount'),
      currency('Collectable_Amount__c', 'Collectable Amount'),
      currency('Disbursed_Amount__c', 'Disbursed Amount'),
      currency('Reported_Amount__c', 'Reported Amount'),
      field('Net_Terms_Days__c', 'Net Terms (Days)', 'double', { precision: 5, scale: 0 }),
      checkbox('Auto_Renew__c', 'Auto Renew'),
      text('Agreement_Status__c', 'Agreement Status', 40),
      url('Agreement_PDF_URL__c', 'Agreement PDF URL'),
      text('Agreement_PDF_Note__c', 'Agreement PDF Note', 255),
      text('Initial_Agreement_Id__c', 'Initial Agreement Id', 255),
      longText('Payment_Installments__c', 'Payment Installments', 32768),
      // Its usage so far (issue #25 section 4).
      currency('Usage_Amount__c', 'Usage Amount'),
      field('Commit_Burn_Down__c', 'Commit Burn Down (%)', 'double', { precision: 9, scale: 2 }),
      field('Last_Usage_Date__c', 'Last Usage Date', 'date'),
      field('Failed_Usage_Reports__c', 'Failed Usage Reports', 'double', { precision: 9, scale: 0 }),
      field('Days_To_End__c', 'Days To End', 'double', { precision: 18, scale: 0, formula: 'IF(ISBLANK(End_Date__c), NULL, FLOOR(End_Date__c - NOW()))' }),
    ]),
  },
  {
    name: 'Cosell_Referral__c',
    label: 'Cosell Referral',
    labelPlural: 'Cosell Referrals',
    keyPrefix: 'a0R',
    custom: true,
    fields: systemFields('Record ID', [
      text('Name', 'Cosell Referral Name', 80, { required: true, custom: false, idLookup: true }),
      ownerField(),
      externalKey('Commerce_Referral_Id__c', 'Commerce Referral Id'),
      reference('Opportunity__c', 'Opportunity', 'Opportunity', 'Opportunity__r'),
      text('Stage__c', 'Stage', 40),
      text('Status__c', 'Status', 40),
      text('Partner__c', 'Partner', 40),
      text('Direction__c', 'Direction', 20),
      currency('Deal_Value__c', 'Deal Value'),
      text('Currency__c', 'Currency', 3),
      field('Expected_Close_Date__c', 'Expected Close Date', 'date'),
    ]),
  },
  {
    // Usage by day (issue #25 section 4): one record per entitlement, dimension and date.
    name: 'Marketplace_Usage__c',
    label: 'Marketplace Usage',
    labelPlural: 'Marketplace Usage',
    keyPrefix: 'a0U',
    custom: true,
    fields: systemFields('Record ID', [
      text('Name', 'Marketplace Usage Name', 80, { required: true, custom: false, idLookup: true }),
      text('Commerce_Usage_Key__c', 'Commerce Usage Key', 255, { externalId: true, unique: true, idLookup: true }),
      reference('Entitlement__c', 'Entitlement', 'Marketplace_Entitlement__c', 'Entitlement__r'),
      text('Dimension__c', 'Dimension', 255),
      field('Usage_Date__c', 'Usage Date', 'date'),
      field('Quantity__c', 'Quantity', 'double', { precision: 18, scale: 6 }),
      currency('Amount__c', 'Amount'),
      field('Failed_Reports__c', 'Failed Reports', 'double', { precision: 9, scale: 0 }),
    ]),
  },
  {
    // Activities (issue #27 section 1): a Task names the record it is about by WhatId (polymorphic: any
    // object that allows activities, told apart by the id's key prefix) and its person by WhoId. Status and
    // Priority are defaulted on create (Not Started, Normal), so not required. Activity
    // custom fields are defined on Activity and appear on Task (deployments.ts).
    name: 'Task',
    label: 'Task',
    labelPlural: 'Tasks',
    keyPrefix: '00T',
    custom: false,
    fields: systemFields('Activity ID', [
      ownerField(),
      text('Subject', 'Subject', 255),
      longText('Description', 'Description'),
      field('Status', 'Status', 'picklist', { length: 40, picklistValues: TASK_STATUSES, restrictedPicklist: true, defaultValue: 'Not Started' }),
      field('Priority', 'Priority', 'picklist', { length: 40, picklistValues: TASK_PRIORITIES, restrictedPicklist: true, defaultValue: 'Normal' }),
      field('ActivityDate', 'Due Date Only', 'date'),
      field('WhatId', 'Related To ID', 'reference', { length: 18, referenceTo: TASK_WHAT_OBJECTS, relationshipName: 'What' }),
      field('WhoId', 'Name ID', 'reference', { length: 18, referenceTo: ['Contact'], relationshipName: 'Who' }),
      text('Commerce_Event_Id__c', 'Commerce Event Id', 64, { externalId: true, idLookup: true }),
    ]),
  },
  {
    // The standard junction between an Opportunity and the Contacts working on it. Salesforce keeps no
    // uniqueness on (OpportunityId, ContactId): the same pair may be saved twice.
    name: 'OpportunityContactRole',
    label: 'Opportunity Contact Role',
    labelPlural: 'Opportunity Contact Roles',
    keyPrefix: '00K',
    custom: false,
    fields: systemFields('Contact Role ID', [
      reference('OpportunityId', 'Opportunity', 'Opportunity', 'Opportunity', { required: true, createOnly: true }),
      reference('ContactId', 'Contact', 'Contact', 'Contact', { required: true }),
      field('Role', 'Role', 'picklist', { length: 40, picklistValues: CONTACT_ROLES }),
      checkbox('IsPrimary', 'Primary'),
    ]),
  },
];

/** The org's schema, by object API name: exactly what the describe calls are built from. */
export const SALESFORCE_SANDBOX_SCHEMA: Readonly<Record<string, SandboxObject>> = Object.freeze(
  Object.fromEntries(objects.map((o) => [o.name, o])),
);

// API names are case-insensitive on the wire; these indexes resolve any casing to the definition. The
// object looked up by name is the one the request's org view holds (org-context.ts): an org whose
// Tooling API added objects and fields, seen as its integration user; outside a request, the model above.
const objectIndex = new Map(objects.map((o) => [o.name.toLowerCase(), o]));
// Keyed by the fields array: an org view's object (a copy with fields added or hidden) gets its own index.
const fieldIndexes = new WeakMap<readonly SandboxField[], { byName: Map<string, SandboxField>; byRelationship: Map<string, SandboxField> }>();
function indexOf(object: SandboxObject) {
  let index = fieldIndexes.get(object.fields);
  if (!index) {
    index = {
      byName: new Map(object.fields.map((f) => [f.name.toLowerCase(), f])),
      byRelationship: new Map(object.fields.filter((f) => f.relationshipName).map((f) => [f.relationshipName!.toLowerCase(), f])),
    };
    fieldIndexes.set(object.fields, index);
  }
  return index;
}

/**
 * Standard objects modelled beside the project's (permissions.ts: User, PermissionSet ...): part of every
 * org, and found by name outside a request too (the journal's replay), though not in SALESFORCE_SANDBOX_SCHEMA.
 */
export function addStandardObjects(more: readonly SandboxObject[]) {
  for (const o of more) {
    if (objectIndex.has(o.name.toLowerCase())) continue;
    objects.push(o);
    objectIndex.set(o.name.toLowerCase(), o);
  }
}

addStandardObjects(CATALOGUE_OBJECTS);

/** Every object of the request's org as its user sees it (the model's objects outside a request). */
export const orgObjects = (): readonly SandboxObject[] => currentOrgView()?.objects ?? objects;
export const findObject = (name: string): SandboxObject | undefined => (currentOrgView()?.byName ?? objectIndex).get(name.toLowerCase());
export const findField = (object: SandboxObject, name: string): SandboxField | undefined => indexOf(object).byName.get(name.toLowerCase());
/** The reference field whose relationship name is `name` (Account, Account__r ...). */
export const findRelationship = (object: SandboxObject, name: string): SandboxField | undefined => indexOf(object).byRelationship.get(name.toLowerCase());
export const objectByKeyPrefix = (id: string): SandboxObject | undefined => orgObjects().find((o) => id.startsWith(o.keyPrefix));

export const isTextType = (type: FieldType) => ['string', 'textarea', 'url', 'email', 'phone', 'picklist'].includes(type);
/** Long text areas can be neither filtered nor sorted in SOQL. */
export const isFilterable = (f: SandboxField) => !(f.type === 'textarea' && f.length > 255);
/** A field a write may name as the key of a parent or an upsert: an external id or the record Id. */
export const isUpsertKey = (f: SandboxField) => f.externalId || f.name === 'Id';
