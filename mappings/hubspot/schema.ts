// What the project needs in a HubSpot account: its custom properties per object (the unique-value id
// properties the sync upserts by, the commerce fields, the co-sell fields) and the two deal pipelines.
// `crm-sync setup` creates what is missing (crm/hubspot/setup.ts); the mappings write exactly these.
import { MARKETPLACE_NAMES } from '../values.ts';
import { DEAL_OFFER_APPROVAL_OPTIONS, DEAL_OFFER_PROPERTIES } from './deal-offer-lines.ts';
import { LIVE_AGREEMENT_COMPANY_PROPERTIES, RENEWAL_DEAL_PROPERTIES, RENEWAL_ENTITLEMENT_PROPERTIES, RENEWAL_PIPELINE_DECLARATION, RENEWAL_PIPELINE_LABEL } from './renewal-schema.ts';

export type PropertyDeclaration = {
  name: string;
  label: string;
  type: 'string' | 'number' | 'datetime' | 'date' | 'enumeration' | 'bool';
  fieldType: string;
  hasUniqueValue?: boolean;
  options?: { label: string; value: string }[];
  description?: string;
};

/** The internal values of the deal property cosell_decision (what the API reads and writes; labels Accept, Reject). */
export const COSELL_DECISION = { accept: 'accept', reject: 'reject' } as const;

/** HubSpot's own deal properties the lifecycle reads (every account has them; setup creates none). */
export const STANDARD_DEAL_PROPERTIES = ['closed_lost_reason'] as const;

/** The property group the project's properties are created in (setup creates it first where missing). */
export const PROPERTY_GROUP = 'commerce';

const text = (name: string, label: string, extra: Partial<PropertyDeclaration> = {}): PropertyDeclaration => ({ name, label, type: 'string', fieldType: 'text', ...extra });
const id = (name: string, label: string): PropertyDeclaration => text(name, label, { hasUniqueValue: true, description: 'The record id on the Marketplace Commerce Service (set by commerce-crm-sync)' });
const number = (name: string, label: string): PropertyDeclaration => ({ name, label, type: 'number', fieldType: 'number' });
const datetime = (name: string, label: string): PropertyDeclaration => ({ name, label, type: 'datetime', fieldType: 'date' });
const checkbox = (name: string, label: string): PropertyDeclaration => ({
  name,
  label,
  type: 'bool',
  fieldType: 'booleancheckbox',
  options: [{ label: 'Yes', value: 'true' }, { label: 'No', value: 'false' }],
});
const marketplace = (name: string, label: string): PropertyDeclaration => ({
  name,
  label,
  type: 'enumeration',
  fieldType: 'select',
  options: Object.values(MARKETPLACE_NAMES).map((value) => ({ label: value, value })),
});

/** The entitlement object: the custom object, or line items on the offer's deal where custom objects are not available. */
export const ENTITLEMENT_OBJECT = 'marketplace_entitlement';
export const ENTITLEMENT_FALLBACK_OBJECT = 'line_items';

export const HUBSPOT_PROPERTIES: Record<string, PropertyDeclaration[]> = {
  companies: [id('commerce_buyer_id', 'Commerce Buyer Id'), marketplace('marketplace', 'Marketplace'), text('marketplace_account_id', 'Marketplace Account Id'), text('marketplace_status', 'Marketplace Status'), ...LIVE_AGREEMENT_COMPANY_PROPERTIES],
  contacts: [id('commerce_contact_id', 'Commerce Contact Id'), text('jobtitle', 'Job Title')],
  deals: [
    id('commerce_offer_id', 'Commerce Offer Id'),
    id('commerce_referral_id', 'Commerce Referral Id'),
    marketplace('marketplace', 'Marketplace'),
    text('offer_type', 'Offer Type'),
    text('offer_status', 'Offer Status'),
    text('offer_url', 'Offer URL'),
    datetime('offer_expiration', 'Offer Expiration'),
    checkbox('cosell_share', 'Co-sell Share'),
    marketplace('cosell_partner', 'Co-sell Partner'),
    text('cosell_status', 'Co-sell Status'),
    text('cosell_stage', 'Co-sell Stage'),
    text('cosell_errors', 'Co-sell Errors', { fieldType: 'textarea' }),
    text('cosell_draft_errors', 'Co-sell Draft Errors', { fieldType: 'textarea' }),
    checkbox('private_offer_requested', 'Private Offer Requested'),
    text('commerce_product_id', 'Commerce Product Id'),
    text('referral_direction', 'Referral Direction'),
    // The referral's lifecycle from the CRM (issue #24): an optional second signal to submit, the seller's
    // decision on an inbound referral and its reason, and when the partner's review of a submission ends.
    // The loss reason is HubSpot's own closed_lost_reason (STANDARD_DEAL_PROPERTIES), never created.
    checkbox('cosell_submit', 'Co-sell Submit'),
    {
      name: 'cosell_decision',
      label: 'Co-sell Decision',
      type: 'enumeration',
      fieldType: 'select',
      options: [
        { label: 'Accept', value: COSELL_DECISION.accept },
        { label: 'Reject', value: COSELL_DECISION.reject },
      ],
    },
    text('cosell_decision_reason', 'Co-sell Decision Reason', { fieldType: 'textarea' }),
    datetime('cosell_review_ends', 'Co-sell Review Ends'),
    // Renewals (issue #25 section 3): mappings/hubspot/renewal-schema.ts.
    ...RENEWAL_DEAL_PROPERTIES,
    // A private offer from the deal's line items (issue #28 section 2): its own terms, a deal desk's
    // approval (the connection's cosell.offerApproval may name these), a new expiry and a cancel request.
    { name: DEAL_OFFER_PROPERTIES.durationMonths, label: 'Offer Duration Months', type: 'number', fieldType: 'number' },
    text(DEAL_OFFER_PROPERTIES.paymentSchedule, 'Offer Payment Schedule', { fieldType: 'textarea', description: 'One charge a line: YYYY-MM-DD amount, in the deal currency' }),
    { name: DEAL_OFFER_PROPERTIES.approvalStatus, label: 'Offer Approval Status', type: 'enumeration', fieldType: 'select', options: DEAL_OFFER_APPROVAL_OPTIONS.map((value) => ({ label: value, value })) },
    text(DEAL_OFFER_PROPERTIES.approvedBy, 'Offer Approved By'),
    datetime(DEAL_OFFER_PROPERTIES.approvedAt, 'Offer Approved At'),
    { name: DEAL_OFFER_PROPERTIES.newExpiry, label: 'Offer New Expiry Date', type: 'date', fieldType: 'date' },
    checkbox(DEAL_OFFER_PROPERTIES.cancel, 'Offer Cancel Requested'),
  ],
  [ENTITLEMENT_OBJECT]: [
    text('status', 'Status'),
    datetime('start_date', 'Start Date'),
    datetime('end_date', 'End Date'),
    number('commit_amount', 'Commit Amount'),
    number('used_commit_amount', 'Used Commit Amount'),
    number('credit_amount', 'Credit Amount'),
    number('used_credit_amount', 'Used Credit Amount'),
    number('annualized_amount', 'Annualized Amount'),
    text('currency', 'Currency'),
    marketplace('marketplace', 'Marketplace'),
    text('marketplace_agreement_id', 'Marketplace Agreement Id'),
    text('marketplace_subscription_id', 'Marketplace Subscription Id'),
    text('product_id', 'Product Id'),
    text('offer_id', 'Offer Id'),
    // Revenue and agreement (issue #25 section 2).
    number('invoiced_amount', 'Invoiced Amount'),
    number('gross_amount', 'Gross Amount'),
    number('collectable_amount', 'Collectable Amount'),
    number('disbursed_amount', 'Disbursed Amount'),
    number('reported_amount', 'Reported Amount'),
    number('net_terms_days', 'Net Terms (Days)'),
    checkbox('auto_renew', 'Auto Renew'),
    text('agreement_status', 'Agreement Status'),
    text('agreement_pdf_url', 'Agreement PDF URL'),
    text('agreement_pdf_note', 'Agreement PDF Note', { fieldType: 'textarea' }),
    text('initial_agreement_id', 'Initial Agreement Id'),
    text('payment_installments', 'Payment Installments', { fieldType: 'textarea' }),
    // The entitlement it renews (issue #25 section 2): mappings/hubspot/renewal-schema.ts.
    ...RENEWAL_ENTITLEMENT_PROPERTIES,
  ],
  [ENTITLEMENT_FALLBACK_OBJECT]: [id('commerce_entitlement_id', 'Commerce Entitlement Id')],
  // The timeline (issue #27 section 1): the event a task was made for. Not a unique-value property:
  // HubSpot has none on activities (docs/crm-wire-behaviour.md); the connector searches it before a create.
  tasks: [text('commerce_event_id', 'Commerce Event Id', { description: 'The notification event on the Marketplace Commerce Service this task was made for (set by commerce-crm-sync)' })],
};

/** The custom object's own id property (part of the object's definition, made with the object). */
export const ENTITLEMENT_ID_PROPERTY = 'entitlement_id';

/**
 * The custom object as `crm-sync setup` defines it where it is missing (POST
 * /crm-object-schemas/v3/schemas, HubSpot's ObjectSchemaEgg): its name (the logical name the worker
 * uses; API paths take its objectTypeId, crm/hubspot/object-types.ts), the display property and the id
 * property with unique values, associated to companies and deals. Its other properties are created in
 * the commerce group afterwards, as on every other object.
 */
export const ENTITLEMENT_SCHEMA = {
  name: ENTITLEMENT_OBJECT,
  labels: { singular: 'Marketplace entitlement', plural: 'Marketplace entitlements' },
  description: 'An entitlement on a marketplace (set by commerce-crm-sync)',
  primaryDisplayProperty: 'entitlement_name',
  requiredProperties: [] as string[],
  searchableProperties: ['entitlement_name', ENTITLEMENT_ID_PROPERTY],
  secondaryDisplayProperties: [] as string[],
  associatedObjects: ['COMPANY', 'DEAL'],
  properties: [text('entitlement_name', 'Entitlement Name'), id(ENTITLEMENT_ID_PROPERTY, 'Entitlement Id')],
};

/** The group setup creates on every object it adds properties to (a property must be in a group its object has). */
export const PROPERTY_GROUP_LABEL = 'Commerce';

export type PipelineDeclaration = { label: string; stages: { label: string; probability: number; closed?: boolean }[] };

export const OFFER_PIPELINE = 'Marketplace offers';
export const REFERRAL_PIPELINE = 'Co-sell referrals';
export const RENEWAL_PIPELINE = RENEWAL_PIPELINE_LABEL;

export const HUBSPOT_PIPELINES: PipelineDeclaration[] = [
  {
    label: OFFER_PIPELINE,
    stages: [
      { label: 'Draft', probability: 0.1 },
      { label: 'Offer extended', probability: 0.5 },
      { label: 'Needs attention', probability: 0.5 },
      { label: 'Accepted', probability: 1, closed: true },
      { label: 'Lost', probability: 0, closed: true },
    ],
  },
  // HubSpot's own default stage labels, so one stage table serves a referral's deal here and a seller's
  // deal in the account's default pipeline alike (the co-sell stage itself shows in cosell_stage).
  {
    label: REFERRAL_PIPELINE,
    stages: [
      { label: 'Appointment Scheduled', probability: 0.2 },
      { label: 'Qualified To Buy', probability: 0.4 },
      { label: 'Presentation Scheduled', probability: 0.6 },
      { label: 'Decision Maker Bought-In', probability: 0.8 },
      { label: 'Contract Sent', probability: 0.9 },
      { label: 'Closed Won', probability: 1, closed: true },
      { label: 'Closed Lost', probability: 0, closed: true },
    ],
  },
  RENEWAL_PIPELINE_DECLARATION,
];
