// Record shapes the sandbox stores and serves, written from §2 of the contract and A6 of the
// assumptions doc. Nested objects the contract leaves open stay loose (JsonObject).

export type JsonObject = Record<string, unknown>;

export const PARTNERS = ['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF'] as const;
export type Partner = (typeof PARTNERS)[number];

export const ENTITLEMENT_STATUSES = ['ACTIVE', 'PENDING', 'SUSPENDED', 'CANCELLED', 'EXPIRED'] as const;
export const OFFER_STATUSES = [
  'PENDING_CREATE',
  'PENDING_ACCEPTANCE',
  'PENDING_CANCEL',
  'ACTIVE',
  'USED',
  'ACCEPTED',
  'EXPIRED',
  'UPDATE_FAILED',
  'DELETED',
] as const;
export const OFFER_TYPES = ['PRIVATE', 'PUBLIC', 'CPPO', 'CPPO_IN', 'CPPO_OUT', 'FREE_TRIAL', 'OFFER_SET'] as const;
export const REFERRAL_STATUSES = ['DRAFT', 'SUBMITTED', 'ACCEPTED', 'REJECTED', 'CLOSED'] as const;
export const REFERRAL_STAGES = [
  'Prospect',
  'Qualified',
  'Technical Validation',
  'Business Validation',
  'Committed',
  'Launched',
  'Closed Lost',
] as const;
export const REFERRAL_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
/** §3.1: Cancel Offer is allowed only from these statuses. */
export const CANCELLABLE_OFFER_STATUSES: readonly string[] = ['PENDING_ACCEPTANCE', 'PENDING_CANCEL', 'ACTIVE', 'USED'];
/** §3.2: Extend Offer Expiry Date is allowed only from these statuses. */
export const EXTENDABLE_OFFER_STATUSES: readonly string[] = ['PENDING_ACCEPTANCE', 'EXPIRED', 'ACCEPTED', 'UPDATE_FAILED'];

export type Organization = { id: string; name: string };

/** A product's dimension (A18): what is sold, in which unit, and its list price per unit in each currency. */
export type ProductDimension = {
  key: string;
  name: string;
  description: string;
  unit: string;
  /** COMMIT: bought up front for the term (an offer's info.commits); METERED: usage reported (info.dimensions). */
  type: 'COMMIT' | 'METERED';
  prices: { currency: string; pricePerUnit: number }[];
};

export type Product = {
  id: string;
  organizationID: string;
  name: string;
  partner: Partner;
  partnerID: string;
  productType: string;
  status: string;
  externalID: string;
  creationTime: string;
  lastUpdateTime: string;
  /** `dimensions` (ProductDimension[]) and `currencies` (every currency a dimension is priced in), A18. */
  info: JsonObject & { dimensions: ProductDimension[]; currencies: string[] };
};

export type Buyer = {
  id: string;
  organizationID: string;
  name: string;
  externalID: string;
  partner: Partner;
  emailDomain: string;
  country: string;
  status: string;
  creationTime: string;
  lastUpdateTime: string;
  metaInfo: JsonObject;
};

export type Contact = {
  id: string;
  organizationID: string;
  buyerID: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  title: string;
  tags: string[];
  creationTime: string;
  lastUpdateTime: string;
};

export type Offer = {
  id: string;
  name: string;
  organizationID: string;
  buyerID?: string;
  contactIds: string[];
  channelType: string;
  offerType: string;
  pricingType: string;
  productID: string;
  productType: string;
  partner: string;
  partnerID: string;
  service: string;
  externalID?: string;
  externalStatus?: string;
  status: string;
  subStatus?: string;
  createdBy: string;
  lastUpdatedBy: string;
  creationTime: string;
  lastUpdateTime: string;
  endTime: string | null;
  expireTime: string | null;
  info: JsonObject;
  metaInfo: JsonObject;
};

export type Entitlement = {
  id: string;
  organizationID: string;
  buyerID: string;
  externalBuyerID: string;
  externalID: string;
  externalProductID: string;
  externalStatus: string;
  entitlementTermID: string;
  offerID: string;
  productID: string;
  partner: string;
  partnerID: string;
  service: string;
  name: string;
  status: string;
  type: string;
  creationTime: string;
  startTime: string;
  endTime: string | null;
  lastUpdateTime: string;
  info: JsonObject;
  metaInfo: JsonObject;
};

export type EntitlementTerm = {
  id: string;
  entitlementID: string;
  externalEntitlementID: string;
  buyerID: string;
  offerID: string;
  productID: string;
  organizationID: string;
  partner: string;
  service: string;
  commitAmount: number;
  usedCommitAmount: number;
  creditAmount: number;
  usedCreditAmount: number;
  reportedAmount: number;
  creationTime: string;
  startTime: string;
  endTime: string | null;
  lastUpdateTime: string;
  entitlementInfo: JsonObject;
  info: JsonObject;
};

export type Referral = {
  id: string;
  organizationID: string;
  name: string;
  partner: string;
  direction: string;
  status: string;
  stage: string;
  buyerID: string;
  offerID?: string;
  dealValue?: number;
  currency?: string;
  expectedCloseDate?: string;
  crmAOpportunityId?: string;
  crmBDealId?: string;
  crmCOpportunityId?: string;
  description?: string;
  /** Contacts of the buyer the referral names (A6); the partner names them on an inbound referral. */
  contactIds?: string[];
  /** Why the referral is REJECTED (the partner's or the seller's words), or the seller's note on accepting an inbound one (A13). */
  statusReason?: string;
  /** Why the deal was lost, sent by the seller with stage Closed Lost (A13). */
  closedLostReason?: string;
  /** Set while the partner reviews a referral the seller submitted (A13); removed with the decision. */
  partnerReviewEndTime?: string;
  /** Commission actions taken once the deal is won (§3.6, A13). */
  commission?: JsonObject;
  creationTime: string;
  lastUpdateTime: string;
};

export type NotificationEvent = {
  eventID: string;
  organizationID: string;
  /** Missing or 0 means version 1 (§6.3); the generator leaves it out on a few events on purpose. */
  version?: number;
  action: string;
  eventStatus: string;
  entityType: string;
  entityID: string;
  entityName: string;
  entityStatus?: string;
  partner?: string;
  priority: string;
  title: string;
  message: string;
  channels: readonly string[];
  contactIds: readonly string[];
  ccContactIds: readonly string[];
  contactEmails: readonly string[];
  isActionItem: boolean;
  requireAudit: boolean;
  customFields: Readonly<JsonObject>;
  info: Readonly<JsonObject>;
  createdBy: Readonly<JsonObject>;
  createdBySource: string;
  trackEvents: readonly Readonly<JsonObject>[];
  timestamp: string;
  lastUpdateTime: string;
};
