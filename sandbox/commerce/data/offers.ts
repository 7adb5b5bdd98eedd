// Offers of every named type (private, public, CPPO, CPPO_IN, CPPO_OUT, free trial, offer sets) and
// co-sell referrals. Used by the generator and by the change driver for new records.
import { REFERRAL_DIRECTIONS, type Buyer, type Contact, type Offer, type Product, type Referral } from '../types.ts';
import {
  createdBefore,
  crmAOpportunityId,
  crmBDealId,
  crmCOpportunityId,
  DAY,
  iso,
  offerExternalId,
  recordId,
  tiedPast,
  type GenContext,
} from './common.ts';

export type Parties = {
  products: readonly Product[];
  productsById: ReadonlyMap<string, Product>;
  buyers: readonly Buyer[];
  buyersById: ReadonlyMap<string, Buyer>;
  buyersByPartner: ReadonlyMap<string, readonly Buyer[]>;
  contactsByBuyer: ReadonlyMap<string, readonly Contact[]>;
};

export function indexParties(products: readonly Product[], buyers: readonly Buyer[], contacts: readonly Contact[]): Parties {
  const buyersByPartner = new Map<string, Buyer[]>();
  for (const buyer of buyers) {
    const list = buyersByPartner.get(buyer.partner) ?? [];
    list.push(buyer);
    buyersByPartner.set(buyer.partner, list);
  }
  const contactsByBuyer = new Map<string, Contact[]>();
  for (const contact of contacts) {
    const list = contactsByBuyer.get(contact.buyerID) ?? [];
    list.push(contact);
    contactsByBuyer.set(contact.buyerID, list);
  }
  return {
    products,
    productsById: new Map(products.map((product) => [product.id, product])),
    buyers,
    buyersById: new Map(buyers.map((buyer) => [buyer.id, buyer])),
    buyersByPartner,
    contactsByBuyer,
  };
}

export function buyerFor(ctx: GenContext, parties: Parties, partner: string): Buyer {
  const sameMarketplace = parties.buyersByPartner.get(partner);
  return ctx.random.pick(sameMarketplace && sameMarketplace.length > 0 ? sameMarketplace : parties.buyers);
}

const OFFER_TYPE_WEIGHTS = [['PRIVATE', 45], ['PUBLIC', 8], ['CPPO', 10], ['CPPO_IN', 8], ['CPPO_OUT', 8], ['FREE_TRIAL', 5], ['OFFER_SET', 16]] as const;
const OFFER_STATUS_WEIGHTS = [
  ['ACCEPTED', 28], ['ACTIVE', 18], ['PENDING_ACCEPTANCE', 15], ['EXPIRED', 10], ['USED', 5],
  ['PENDING_CREATE', 5], ['PENDING_CANCEL', 4], ['UPDATE_FAILED', 5], ['DELETED', 6],
] as const;
const PRICING_WEIGHTS = [['CONTRACT', 40], ['FIXED_FEE', 15], ['USAGE', 20], ['CUD', 10], ['SUBSCRIPTION', 15]] as const;
const EXTERNAL_STATUS: Record<string, string> = {
  PENDING_CREATE: 'Preview', PENDING_ACCEPTANCE: 'Released', PENDING_CANCEL: 'CancelRequested', ACTIVE: 'Live',
  USED: 'Used', ACCEPTED: 'Accepted', EXPIRED: 'Expired', UPDATE_FAILED: 'UpdateFailed', DELETED: 'Restricted',
};
export const externalStatusOf = (status: string) => EXTERNAL_STATUS[status] ?? status;
const RESALE_TYPES = new Set(['CPPO', 'CPPO_IN', 'CPPO_OUT']);
const BUYERLESS_TYPES = new Set(['PUBLIC', 'FREE_TRIAL', 'CPPO_OUT']);

export type OfferChoice = {
  product?: Product;
  offerType?: string;
  status?: string;
  /** More than 50 usage dimensions: entitlements of this offer carry dimensionsOversized. */
  oversized?: boolean;
  /** Creation and last update at this instant (new offers of the change driver). */
  atMs?: number;
  expectedCount?: number;
};

export function makeOffer(ctx: GenContext, n: number, parties: Parties, choice: OfferChoice = {}): Offer {
  const r = ctx.random;
  const product = choice.product ?? r.pick(parties.products);
  const partner = product.partner;
  const offerType = choice.offerType ?? r.weighted(OFFER_TYPE_WEIGHTS);
  const status = choice.status ?? r.weighted(OFFER_STATUS_WEIGHTS);
  const buyer = BUYERLESS_TYPES.has(offerType) ? undefined : buyerFor(ctx, parties, partner);
  const contacts = buyer ? (parties.contactsByBuyer.get(buyer.id) ?? []) : [];
  const lastMs = choice.atMs ?? tiedPast(ctx, choice.expectedCount ?? 1000);
  const creationMs = choice.atMs ?? createdBefore(ctx, lastMs, 400);
  const oversized = choice.oversized ?? r.chance(0.03);
  const dimensionCount = oversized ? r.int(51, 60) : r.int(1, 5);
  const visibility = offerType === 'PUBLIC' || offerType === 'FREE_TRIAL' ? 'PUBLIC' : 'PRIVATE';
  const commitAmount = r.amount(1_000, 250_000);
  const durationMonths = r.pick([12, 24, 36]);
  const id = recordId('offer', n);

  const info: Record<string, unknown> = {
    currency: r.chance(0.9) ? 'USD' : 'EUR',
    commitAmount,
    autoRenew: r.chance(0.5),
    billingCycle: r.pick(['MONTHLY', 'ANNUAL', 'UPFRONT']),
    billingIntervalInMonths: r.pick([1, 12]),
    visibility,
    eulaType: r.pick(['STANDARD', 'CUSTOM']),
    dimensions: Array.from({ length: dimensionCount }, (_, d) => ({ key: `dim_${d + 1}`, name: `Dimension ${d + 1}`, rate: r.amount(0.01, 5), unit: 'Units' })),
    commits: [{ key: 'commit_1', name: 'Annual commit', amount: commitAmount }],
    buyerCountryCodes: offerType === 'CPPO_OUT' ? [] : r.chance(0.2) ? [r.pick(['US', 'GB', 'DE'])] : [],
  };
  if (visibility === 'PRIVATE') info.privateOfferUrl = `https://marketplace.example/${partner}/private-offer/${id}`;
  if (offerType === 'OFFER_SET') info.cloudAOfferSetId = `os-${r.alnum(10)}`;
  if (offerType === 'CPPO_IN') info.cloudAResaleAuthorizationId = `resaleauthz-${r.alnum(12)}`;
  if (RESALE_TYPES.has(offerType)) {
    info.cloudAMarkupPercentage = r.pick([5, 7.5, 10, 12.5]);
    info.cloudAChannelPartner = { id: r.digits(12), name: `${r.pick(['Northwind', 'Contoso', 'Fabrikam'])} Reseller` };
  }
  if (offerType === 'FREE_TRIAL') info.trialConfig = { durationInDays: r.pick([14, 30]) };
  if (partner === 'cloudA') info.cloudAAgreementDuration = `P${durationMonths}M`;
  if (partner === 'cloudC') info.cloudCDuration = durationMonths;

  const metaInfo: Record<string, unknown> = {
    createdBySource: r.pick(['CONSOLE', 'API', 'CRM']),
    createdByEmail: `seller${r.int(1, 9)}@sandbox-seller.example.com`,
    customMetaInfo: { region: r.pick(['NA', 'EMEA', 'APAC']) },
  };
  if (r.chance(0.35)) metaInfo.crmAOpportunityId = crmAOpportunityId(r);
  if (r.chance(0.35)) metaInfo.crmBDealId = crmBDealId(r);
  if (r.chance(0.35)) metaInfo.crmCOpportunityId = crmCOpportunityId(r);
  if (offerType === 'CPPO' || offerType === 'CPPO_OUT') metaInfo.resellerIds = [`reseller-${r.digits(6)}`];
  if (['ACCEPTED', 'ACTIVE', 'USED'].includes(status)) metaInfo.offerAcceptDate = iso(creationMs + r.int(1, 20) * DAY);
  if (status !== 'PENDING_CREATE') metaInfo.offerCreationSuccessDate = iso(creationMs + r.int(0, 3_600_000));
  if (status === 'UPDATE_FAILED') {
    metaInfo.errorMessages = ['ValidationException: price dimension dim_1 rate must be positive'];
    metaInfo.prettifiedErrorMessages = ['The rate of dimension 1 must be a positive number.'];
  }

  const offer: Offer = {
    id,
    name: `${product.name} ${offerType === 'PUBLIC' ? 'public listing' : `offer ${n}`}`,
    organizationID: ctx.organizationId,
    contactIds: contacts.slice(0, 2).map((contact) => contact.id),
    channelType: RESALE_TYPES.has(offerType) ? 'RESALE' : 'DIRECT',
    offerType,
    pricingType: offerType === 'FREE_TRIAL' ? 'FREE' : r.weighted(PRICING_WEIGHTS),
    productID: product.id,
    productType: product.productType,
    partner,
    partnerID: product.partnerID,
    service: product.productType,
    status,
    createdBy: `user-${r.int(1, 9)}`,
    lastUpdatedBy: `user-${r.int(1, 9)}`,
    creationTime: iso(creationMs),
    lastUpdateTime: iso(lastMs),
    endTime: visibility === 'PUBLIC' ? null : iso(creationMs + durationMonths * 30 * DAY),
    expireTime: visibility === 'PUBLIC' ? null : iso(creationMs + r.int(30, 90) * DAY),
    info,
    metaInfo,
  };
  if (buyer) offer.buyerID = buyer.id;
  if (status !== 'PENDING_CREATE') {
    offer.externalID = offerExternalId(ctx, partner);
    offer.externalStatus = externalStatusOf(status);
  }
  if (status === 'UPDATE_FAILED') offer.subStatus = 'PRICE_UPDATE_FAILED';
  return offer;
}

const REFERRAL_PATHS = [
  ['DRAFT', 'Prospect', 10], ['SUBMITTED', 'Qualified', 15], ['ACCEPTED', 'Technical Validation', 15],
  ['ACCEPTED', 'Business Validation', 12], ['ACCEPTED', 'Committed', 12], ['CLOSED', 'Launched', 16],
  ['CLOSED', 'Closed Lost', 10], ['REJECTED', 'Prospect', 10],
] as const;

export function makeReferral(ctx: GenContext, n: number, parties: Parties, offers: readonly Offer[], choice: { atMs?: number; expectedCount?: number } = {}): Referral {
  const r = ctx.random;
  const product = r.pick(parties.products);
  const buyer = buyerFor(ctx, parties, product.partner);
  const [status, stage] = r.weighted(REFERRAL_PATHS.map(([s, g, w]) => [[s, g] as const, w] as const));
  const lastMs = choice.atMs ?? tiedPast(ctx, choice.expectedCount ?? 100);
  const creationMs = choice.atMs ?? createdBefore(ctx, lastMs, 300);
  const candidate = offers.length > 0 && r.chance(0.6) ? r.pick(offers) : undefined;
  const offer = candidate && candidate.partner === product.partner ? candidate : undefined;
  const referral: Referral = {
    id: recordId('ref', n),
    organizationID: ctx.organizationId,
    name: `${buyer.name} - ${product.name}`,
    partner: product.partner,
    direction: r.pick(REFERRAL_DIRECTIONS),
    status,
    stage,
    buyerID: buyer.id,
    dealValue: r.amount(5_000, 500_000),
    currency: 'USD',
    expectedCloseDate: iso(creationMs + r.int(30, 180) * DAY).slice(0, 10),
    description: `Co-sell opportunity for ${product.name}`,
    creationTime: iso(creationMs),
    lastUpdateTime: iso(lastMs),
  };
  if (offer) referral.offerID = offer.id;
  if (r.chance(0.4)) referral.crmAOpportunityId = crmAOpportunityId(r);
  if (r.chance(0.3)) referral.crmBDealId = crmBDealId(r);
  if (r.chance(0.3)) referral.crmCOpportunityId = crmCOpportunityId(r);
  return referral;
}
