// Records of the commerce API (§2), parsed leniently as §9.5 demands: unknown fields and new enum
// values are kept as they came. Only what the worker depends on is validated — ids and lastUpdateTime
// — and a record failing that is returned as a CommerceRecordError naming the field, not thrown, so
// the rest of its page goes on. Enumerations are open strings: a new value is data, not an error.
import { z } from 'zod';
import { CommerceRecordError } from './errors.ts';

/** ISO 8601 date-time text, or epoch milliseconds (marketplace D, §2.10). */
export type Time = string | number;

export type Partner = 'cloudA' | 'cloudB' | 'cloudC' | 'cloudD' | 'cloudE' | 'cloudF' | (string & {});
export type EntitlementStatus = 'ACTIVE' | 'PENDING' | 'SUSPENDED' | 'CANCELLED' | 'EXPIRED' | (string & {});
export type OfferStatus =
  | 'PENDING_CREATE' | 'PENDING_ACCEPTANCE' | 'PENDING_CANCEL' | 'ACTIVE' | 'USED' | 'ACCEPTED' | 'EXPIRED' | 'UPDATE_FAILED' | 'DELETED'
  | (string & {});
export type OfferType = 'PRIVATE' | 'PUBLIC' | 'CPPO' | 'CPPO_IN' | 'CPPO_OUT' | 'FREE_TRIAL' | 'OFFER_SET' | (string & {});

type Loose = Record<string, unknown>;

/** §2.4 */
export type BillingAddonRecord = { id?: string; name?: string; description?: string; amount?: number; chargeOn?: string } & Loose;

/** §2.10 (the fields the mappings read; the rest stay as they came). */
export type CloudAAgreement = {
  agreementId?: string; agreementType?: string; acceptanceTime?: string; buyerAccountId?: string; startTime?: string; endTime?: string;
  initialAgreementId?: string; offerId?: string; status?: string;
} & Loose;
export type CloudBSubscription = { id?: string; name?: string; offerId?: string; planId?: string; quantity?: number; saasSubscriptionStatus?: string; autoRenew?: boolean } & Loose;

/** §2.3 */
export type EntitlementInfo = {
  addons?: BillingAddonRecord[];
  annualizedAmount?: number;
  autoRenew?: boolean;
  billingIntervalInMonths?: number;
  buyerManagementURL?: string;
  cloudAAgreement?: CloudAAgreement;
  cloudAAgreementPdfURL?: string;
  cloudAEntitlements?: Loose[] | null;
  cloudAOfferSetId?: string;
  cloudBAssetID?: string;
  cloudBSubscriptions?: CloudBSubscription[] | null;
  cloudCEntitlements?: Loose[] | null;
  cloudDEntitlements?: Loose[] | null;
  cloudDOrders?: Loose[] | null;
  collectableAmount?: number;
  commitAmount?: number;
  currency?: string;
  dimensions?: Loose[];
  dimensionsOversized?: boolean;
  disbursedAmount?: number;
  grossAmount?: number;
  invoicedAmount?: number;
  offerVisibility?: string;
  vendorName?: string;
} & Loose;

/** §2.6 */
export type WorkloadMetaInfo = {
  crmAAccountId?: string;
  crmAEntitlementURL?: string;
  crmAOpportunityId?: string;
  crmAQuoteId?: string;
  crmBDealId?: string;
  crmCOpportunityId?: string;
  cosellReferralId?: string;
  customMetaInfo?: Loose;
  offerAcceptDate?: string;
  offerCreationSuccessDate?: string;
  createdBySource?: string;
} & Loose;

/** §2.1 */
export type Entitlement = {
  id: string;
  lastUpdateTime: Time;
  organizationID?: string;
  buyerID?: string;
  externalBuyerID?: string;
  externalID?: string;
  externalProductID?: string;
  externalStatus?: string;
  entitlementTermID?: string;
  offerID?: string;
  productID?: string;
  partner?: Partner;
  partnerID?: string;
  service?: string;
  name?: string;
  status?: EntitlementStatus;
  type?: string;
  creationTime?: Time;
  startTime?: Time;
  endTime?: Time | null;
  info?: EntitlementInfo;
  metaInfo?: WorkloadMetaInfo;
} & Loose;

/** §2.2 */
export type EntitlementTermInfo = {
  type?: string;
  isCommitDivided?: boolean;
  subEntitlementTermIds?: string[];
  parentEntitlementTermId?: string;
  dimensionQuantityDecimalParts?: Record<string, number>;
} & Loose;
export type EntitlementTerm = {
  id: string;
  lastUpdateTime: Time;
  entitlementID?: string;
  externalEntitlementID?: string;
  buyerID?: string;
  offerID?: string;
  productID?: string;
  organizationID?: string;
  partner?: Partner;
  service?: string;
  commitAmount?: number;
  usedCommitAmount?: number;
  creditAmount?: number;
  usedCreditAmount?: number;
  reportedAmount?: number;
  creationTime?: Time;
  startTime?: Time;
  endTime?: Time | null;
  entitlementInfo?: EntitlementInfo;
  info?: EntitlementTermInfo;
} & Loose;

/** §2.7's CommitDimension as A19 assumes it: units of a product's COMMIT dimension bought for the term, at a price per unit. */
export type CommitDimension = { key: string; quantity: number; price: number } & Loose;
/** §2.7's MeteringDimension as A19 assumes it: a rate per unit of a product's METERED dimension. */
export type MeteringDimension = { key: string; rate: number } & Loose;
/** §2.7's PaymentInstallment (A17): one charge of a flexible payment schedule. */
export type PaymentInstallment = { chargeDate: string; chargeAmount: number; currency?: string } & Loose;

/** §2.7 (the fields the mappings read). */
export type OfferInfo = {
  autoRenew?: boolean;
  billingIntervalInMonths?: number;
  buyerCountryCodes?: string[];
  commitAmount?: number;
  currency?: string;
  discountPercentage?: number;
  privateOfferUrl?: string;
  startTime?: string;
  visibility?: string;
  cloudAAgreementDuration?: string;
  cloudCDuration?: number;
  commits?: CommitDimension[];
  dimensions?: MeteringDimension[];
  paymentInstallments?: PaymentInstallment[];
} & Loose;

/** §2.5 */
export type Offer = {
  id: string;
  lastUpdateTime: Time;
  name?: string;
  organizationID?: string;
  buyerID?: string;
  contactIds?: string[];
  channelType?: string;
  offerType?: OfferType;
  pricingType?: string;
  productID?: string;
  productType?: string;
  partner?: Partner;
  partnerID?: string;
  service?: string;
  externalID?: string;
  externalStatus?: string;
  status?: OfferStatus;
  /** DRAFT while a draft is held for publishing (A19); absent once it was published. */
  subStatus?: 'DRAFT' | (string & {});
  createdBy?: string;
  lastUpdatedBy?: string;
  creationTime?: Time;
  endTime?: Time | null;
  expireTime?: Time | null;
  info?: OfferInfo;
  metaInfo?: WorkloadMetaInfo;
} & Loose;

/** §2.8 */
export type NotificationEvent = {
  eventID: string;
  organizationID?: string;
  version?: number;
  action?: string;
  eventStatus?: string;
  entityType?: string;
  entityID?: string;
  entityName?: string;
  entityStatus?: string;
  partner?: Partner;
  priority?: string;
  title?: string;
  message?: string;
  channels?: string[];
  requireAudit?: boolean;
  isActionItem?: boolean;
  timestamp?: Time;
  lastUpdateTime?: Time;
} & Loose;

/** Assumption A6: buyers, contacts and referrals are not detailed by the contract. */
export type Buyer = {
  id: string; lastUpdateTime: Time; organizationID?: string; name?: string; externalID?: string; partner?: Partner;
  emailDomain?: string; country?: string; status?: string; metaInfo?: WorkloadMetaInfo & { crmBCompanyId?: string; crmCAccountId?: string };
} & Loose;
export type Contact = {
  id: string; lastUpdateTime: Time; organizationID?: string; buyerID?: string; firstName?: string; lastName?: string;
  email?: string; phone?: string; title?: string; tags?: string[];
} & Loose;
export type Referral = {
  id: string; lastUpdateTime: Time; organizationID?: string; name?: string; partner?: Partner; direction?: string; status?: string;
  stage?: string; buyerID?: string; offerID?: string; dealValue?: number; currency?: string; expectedCloseDate?: string;
  crmAOpportunityId?: string; crmBDealId?: string; crmCOpportunityId?: string; description?: string;
  /** Why the referral is REJECTED: the partner's words, or the seller's on an inbound one; cleared when the status moves on (A13). */
  statusReason?: string;
  /** Why the deal was lost, sent by the seller with stage "Closed Lost" (A13). */
  closedLostReason?: string;
} & Loose;
export type Organization = { id: string; name?: string } & Loose;

/** A18: a product's dimension, with its list price per unit in each currency it is sold in. */
export type ProductDimension = {
  key: string;
  name?: string;
  description?: string;
  unit?: string;
  /** COMMIT (bought up front, an offer's info.commits) or METERED (usage, info.dimensions); open (§9.5). */
  type?: 'COMMIT' | 'METERED' | (string & {});
  prices?: { currency: string; pricePerUnit: number }[];
} & Loose;
/** A18: the contract names the Product operations, not the product's fields (§2.11). */
export type Product = {
  id: string; lastUpdateTime: Time; organizationID?: string; name?: string; partner?: Partner; partnerID?: string; productType?: string;
  /** PUBLIC or DELETED (§3); open. */
  status?: string; externalID?: string; creationTime?: Time;
  info?: { dimensions?: ProductDimension[]; currencies?: string[] } & Loose;
} & Loose;

// --- validation of what the worker depends on ---

const id = z.string({ error: 'must be a non-empty string' }).trim().min(1, 'must be a non-empty string');
const time = z.union([
  z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 date-time'),
  z.number().int().nonnegative(),
], { error: 'must be an ISO 8601 date-time or epoch milliseconds' });

const recordSchema = z.looseObject({ id, lastUpdateTime: time });
/** A price the catalogue sync writes to a CRM's price book must be a currency and a number. */
const price = z.looseObject({
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
  pricePerUnit: z.number({ error: 'must be a number' }).finite().nonnegative('must be at least 0'),
});
const dimensionSchema = z.looseObject({ key: id, prices: z.array(price).optional() });
const schemas = {
  entitlement: recordSchema,
  entitlementTerm: recordSchema,
  offer: recordSchema,
  buyer: recordSchema,
  contact: recordSchema,
  referral: recordSchema,
  organization: z.looseObject({ id }),
  product: z.looseObject({ id, lastUpdateTime: time, info: z.looseObject({ dimensions: z.array(dimensionSchema).optional() }).optional() }),
  productDimension: dimensionSchema,
  notificationEvent: z.looseObject({ eventID: id }),
} as const;

export type ResourceName = keyof typeof schemas;
export type ResourceType = {
  entitlement: Entitlement;
  entitlementTerm: EntitlementTerm;
  offer: Offer;
  buyer: Buyer;
  contact: Contact;
  referral: Referral;
  organization: Organization;
  product: Product;
  productDimension: ProductDimension;
  notificationEvent: NotificationEvent;
};

export type Parsed<T> = { ok: true; record: T } | { ok: false; error: CommerceRecordError; raw: unknown };

export function parseRecord<R extends ResourceName>(resource: R, raw: unknown): Parsed<ResourceType[R]> {
  const result = schemas[resource].safeParse(raw);
  if (result.success) return { ok: true, record: result.data as unknown as ResourceType[R] };
  const rawId = (raw as { id?: unknown } | null)?.id ?? (raw as { eventID?: unknown } | null)?.eventID ?? (raw as { key?: unknown } | null)?.key;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'record'} ${issue.message}`);
  return { ok: false, error: new CommerceRecordError(resource, typeof rawId === 'string' ? rawId : undefined, problems), raw };
}

/** A record time as a Date (ISO text or epoch milliseconds); undefined when absent or unparseable. */
export function toDate(value: Time | null | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  // new Date(true) is 1970 and new Date(['2026-02-01']) is a date: only text and numbers are times.
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
