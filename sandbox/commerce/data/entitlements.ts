// Entitlements with their terms, carrying the marketplace-specific fields of §2.3 and §2.10:
// A (agreement, license, decimal parts of dimension quantities), B (subscriptions), C, D (records with
// epoch-millisecond integer times), E and F. Oversized offers give dimensionsOversized entitlements.
import type { Entitlement, EntitlementTerm, Offer } from '../types.ts';
import { createdBefore, DAY, entitlementExternalId, HOUR, iso, recordId, tiedPast, type GenContext } from './common.ts';
import { buyerFor, type Parties } from './offers.ts';

export type TermCounter = { next: number };

const STATUS_WEIGHTS = [['ACTIVE', 68], ['PENDING', 8], ['SUSPENDED', 5], ['CANCELLED', 11], ['EXPIRED', 8]] as const;
const round2 = (x: number) => Math.round(x * 100) / 100;

export type EntitlementChoice = { dividedCommit?: boolean; expectedCount: number; status?: string };

export function makeEntitlement(
  ctx: GenContext,
  n: number,
  offer: Offer,
  parties: Parties,
  terms: TermCounter,
  choice: EntitlementChoice,
): { entitlement: Entitlement; terms: EntitlementTerm[] } {
  const r = ctx.random;
  const product = parties.productsById.get(offer.productID)!;
  const buyer = (offer.buyerID ? parties.buyersById.get(offer.buyerID) : undefined) ?? buyerFor(ctx, parties, offer.partner);
  const partner = offer.partner;
  const id = recordId('ent', n);
  const externalID = entitlementExternalId(ctx, partner);
  const lastMs = tiedPast(ctx, choice.expectedCount);
  const creationMs = createdBefore(ctx, lastMs, 500);
  const startMs = creationMs + r.int(0, 48) * HOUR;
  const months = r.pick([12, 12, 24, 36]);
  const openEnded = r.chance(0.15);
  const endMs = startMs + months * 30 * DAY;
  const status = choice.status ?? r.weighted(STATUS_WEIGHTS);
  const usageBased = offer.pricingType === 'USAGE';
  const commit = usageBased ? 0 : r.amount(1_000, 250_000);
  const autoRenew = r.chance(0.5);
  const offerDimensions = (offer.info.dimensions as { key: string; name: string; rate: number }[] | undefined) ?? [];

  const info: Record<string, unknown> = {
    addons: [],
    alertDaysBeforeEnd: r.pick([15, 30, 60]),
    autoRenew,
    billingCycle: offer.info.billingCycle,
    billingIntervalInMonths: offer.info.billingIntervalInMonths,
    currency: offer.info.currency,
    commitAmount: commit,
    collectableAmount: round2(commit * 0.97),
    grossAmount: round2(commit + (usageBased ? r.amount(0, 20_000) : 0)),
    invoicedAmount: round2(commit * r.next()),
    disbursedAmount: round2(commit * r.next() * 0.5),
    deliveryMethod: product.productType === 'SAAS' ? 'SAAS_URL' : 'IMAGE',
    eulaType: offer.info.eulaType,
    offerVisibility: offer.info.visibility,
    paymentSchedule: r.pick(['UPFRONT', 'FLEXIBLE', 'PAY_AS_YOU_GO']),
    vendorName: 'Sandbox Software Inc.',
    spaUrl: `https://app.sandbox.example/entitlement/${id}?token=${r.hex(32)}`,
    buyerManagementURL: `https://marketplace.example/${partner}/manage/${externalID}`,
    gracePeriodInDays: r.pick([0, 7, 14]),
    netTermsInDays: r.pick([0, 30, 45]),
    isMeteringOverageCommit: r.chance(0.3),
  };
  if (!usageBased && !openEnded) info.annualizedAmount = round2((commit * 12) / months);
  // A flexible schedule bills the commit in yearly installments (no random draw, so the rest of the data stays as it was).
  if (info.paymentSchedule === 'FLEXIBLE' && commit > 0) info.paymentInstallments = yearlyInstallments(commit, startMs, months, String(offer.info.currency ?? 'USD'));
  if (offerDimensions.length > 50) {
    // §8: beyond 50 dimensions none are stored on the entitlement; they stay readable on the offer.
    info.dimensionsOversized = true;
  } else {
    info.dimensions = offerDimensions.map((dimension) => ({ ...dimension, quantity: r.int(0, 500) }));
    info.dimensionsOversized = false;
  }
  if (r.chance(0.1)) {
    info.addons = [{ id: `addon-${r.alnum(8)}`, name: 'Premium support', description: 'Addon', amount: r.amount(100, 5_000), chargeOn: iso(startMs + 30 * DAY) }];
  }

  const d = { ctx, offer, product, buyer, externalID, startMs, endMs, openEnded, status, autoRenew, commit, months };
  switch (partner) {
    case 'cloudA': addCloudA(info, d); break;
    case 'cloudB': addCloudB(info, d); break;
    case 'cloudC': addCloudC(info, d); break;
    case 'cloudD': addCloudD(info, d); break;
    case 'cloudE': info.cloudEAcceptedOffer = { offerId: offer.externalID ?? offer.id, acceptedAt: iso(startMs), acceptedBy: buyer.externalID }; break;
    default: info.cloudFOffer = { offerId: offer.externalID ?? offer.id, planName: r.pick(['standard', 'premium']), term: `P${months}M` };
  }

  const metaInfo: Record<string, unknown> = { customMetaInfo: {} };
  if (r.chance(0.3)) metaInfo.crmAEntitlementURL = `https://crm-a.example/lightning/r/Entitlement/${r.alnum(15)}`;
  if (offer.metaInfo.crmAOpportunityId && r.chance(0.7)) metaInfo.crmAOpportunityId = offer.metaInfo.crmAOpportunityId;
  if (offer.metaInfo.crmBDealId && r.chance(0.7)) metaInfo.crmBDealId = offer.metaInfo.crmBDealId;
  if (partner === 'cloudC') metaInfo.cloudCBillingAccountID = buyer.externalID;
  if (partner === 'cloudB') metaInfo.cloudBBillingAccountID = r.guid();
  if (r.chance(0.05)) metaInfo.entitlementCancellationSchedule = { cancelAt: iso(endMs), reason: 'BUYER_REQUEST' };

  const entitlement: Entitlement = {
    id,
    organizationID: ctx.organizationId,
    buyerID: buyer.id,
    externalBuyerID: buyer.externalID,
    externalID,
    externalProductID: product.externalID,
    externalStatus: status.toLowerCase(),
    entitlementTermID: '',
    offerID: offer.id,
    productID: product.id,
    partner,
    partnerID: offer.partnerID,
    service: offer.service,
    name: `${product.name} for ${buyer.name}`,
    status,
    type: usageBased ? 'USAGE' : offer.offerType === 'FREE_TRIAL' ? 'FREE_TRIAL' : 'CONTRACT',
    creationTime: iso(creationMs),
    startTime: iso(startMs),
    endTime: openEnded ? null : iso(endMs),
    lastUpdateTime: iso(lastMs),
    info,
    metaInfo,
  };
  const entitlementTerms = makeTerms(ctx, entitlement, terms, {
    divided: choice.dividedCommit ?? (!usageBased && r.chance(0.1)),
    commit,
    startMs,
    endMs: openEnded ? undefined : endMs,
    lastMs,
    dimensionKeys: offerDimensions.slice(0, 3).map((dimension) => dimension.key),
  });
  entitlement.entitlementTermID = entitlementTerms[0]!.id;
  return { entitlement, terms: entitlementTerms };
}

type Detail = {
  ctx: GenContext; offer: Offer; product: { externalID: string; productType: string; name: string }; buyer: { externalID: string; name: string };
  externalID: string; startMs: number; endMs: number; openEnded: boolean; status: string; autoRenew: boolean; commit: number; months: number;
};

function addCloudA(info: Record<string, unknown>, d: Detail) {
  const r = d.ctx.random;
  const licenseArn = `arn:cloudA:license-manager::${r.digits(12)}:license:l-${r.hex(32)}`;
  const renewal = r.chance(0.2);
  info.cloudAAgreement = {
    agreementId: d.externalID,
    acceptanceTime: iso(d.startMs - HOUR),
    agreementType: 'PurchaseAgreement',
    buyerAccountId: d.buyer.externalID,
    endTime: d.openEnded ? null : iso(d.endMs),
    endTimeBehavior: { type: d.autoRenew ? 'RENEW' : 'EXPIRE', reasonCode: d.autoRenew ? 'AUTO_RENEW' : 'NONE', renewalSummary: {} },
    // The root of a renewal chain is another agreement; a standalone agreement is its own root.
    initialAgreementId: renewal ? `agmt-${r.alnum(25)}` : d.externalID,
    licenseArn,
    offerId: d.offer.externalID ?? d.offer.id,
    ...(d.offer.info.cloudAOfferSetId ? { offerSetId: d.offer.info.cloudAOfferSetId } : {}),
    productId: d.product.externalID,
    productType: d.product.productType,
    sellerAccountId: d.offer.partnerID,
    startTime: iso(d.startMs),
    status: d.status === 'ACTIVE' ? 'ACTIVE' : d.status === 'CANCELLED' ? 'CANCELLED' : d.status === 'EXPIRED' ? 'EXPIRED' : 'PENDING',
  };
  info.cloudALicenseArn = licenseArn;
  info.cloudANetPaymentTerm = r.pick(['P15D', 'P30D', 'P45D']);
  info.cloudAAgreementPdfURL = agreementPdfUrl(d.externalID);
  info.fallbackFromOffer = r.chance(0.2);
  info.cloudAEntitlements = r.chance(0.15)
    ? null
    : [{
        customerAWSAccountId: d.buyer.externalID,
        customerIdentifier: r.alnum(11),
        dimension: 'dim_1',
        expirationDate: d.openEnded ? null : iso(d.endMs),
        licenseArn,
        productCode: d.product.externalID,
        value: { integerValue: r.int(1, 100) },
      }];
  if (d.offer.info.cloudAOfferSetId) info.cloudAOfferSetId = d.offer.info.cloudAOfferSetId;
  if (d.offer.info.cloudAChannelPartner) info.cloudAChannelPartner = d.offer.info.cloudAChannelPartner;
  if (r.chance(0.3)) {
    info.cloudARenewalTerm = { type: 'FIXED_PERCENTAGE', configuration: {}, lockoutPeriod: 'P30D', maxRenewals: 3, priceIncrease: { percentage: 5 }, termTemplates: [] };
  }
}

/**
 * The agreement PDF's URL: for about half the agreements a lasting object URL, for the others a presigned,
 * expiring one (as GET /entitlement/{id}/pdf returns), so a client meets both. Chosen from the id, not drawn.
 */
function agreementPdfUrl(externalID: string): string {
  const base = `https://objects.sandbox.example/agreements/${externalID}.pdf`;
  const signed = [...externalID].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 2 === 0;
  const signature = [...externalID].map((c) => c.charCodeAt(0).toString(16)).join('').slice(0, 64);
  return signed ? `${base}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${signature}` : base;
}

/** One installment per started year of the term, the last taking what rounding leaves (§2.3 paymentInstallments; shape: assumption A17). */
function yearlyInstallments(commit: number, startMs: number, months: number, currency: string) {
  const count = Math.max(1, Math.ceil(months / 12));
  const share = round2(commit / count);
  return Array.from({ length: count }, (_, k) => ({
    chargeDate: iso(startMs + k * 365 * DAY),
    chargeAmount: k === count - 1 ? round2(commit - share * (count - 1)) : share,
    currency,
  }));
}

const CLOUD_B_STATUS: Record<string, string> = { ACTIVE: 'Subscribed', PENDING: 'PendingFulfillmentStart', SUSPENDED: 'Suspended', CANCELLED: 'Unsubscribed', EXPIRED: 'Unsubscribed' };

function addCloudB(info: Record<string, unknown>, d: Detail) {
  const r = d.ctx.random;
  info.cloudBAssetID = `asset-${r.alnum(16)}`;
  const tenantId = r.guid();
  info.cloudBSubscriptions = r.chance(0.1)
    ? null
    : [{
        id: d.externalID,
        name: `${d.product.name} subscription`,
        offerId: d.offer.externalID ?? d.offer.id,
        planId: `plan-${r.alnum(6)}`,
        quantity: r.int(1, 250),
        saasSubscriptionStatus: CLOUD_B_STATUS[d.status] ?? 'Subscribed',
        autoRenew: d.autoRenew,
        allowedCustomerOperations: ['Read', 'Update', 'Delete'],
        beneficiary: { emailId: `admin@${tenantId.slice(0, 8)}.example.com`, objectId: r.guid(), tenantId },
        purchaser: { emailId: `buyer@${tenantId.slice(0, 8)}.example.com`, objectId: r.guid(), tenantId },
        created: iso(d.startMs),
        lastModified: iso(d.startMs + DAY),
        fulfillmentId: r.guid(),
        isFreeTrial: false,
        isTest: false,
        publisherId: 'sandbox-publisher',
        sandboxType: 'None',
        sessionId: r.guid(),
        sessionMode: 'None',
        storeFront: 'StoreFront',
        term: { startDate: iso(d.startMs), endDate: d.openEnded ? null : iso(d.endMs), termUnit: d.months === 12 ? 'P1Y' : `P${d.months}M` },
      }];
}

function addCloudC(info: Record<string, unknown>, d: Detail) {
  const r = d.ctx.random;
  const plan = `plan-${r.alnum(6)}`;
  info.cloudCEntitlements = r.chance(0.1)
    ? null
    : [{ name: d.externalID, state: d.status === 'ACTIVE' ? 'ENTITLEMENT_ACTIVE' : 'ENTITLEMENT_PENDING_CANCELLATION', plan, product: d.product.externalID, createTime: iso(d.startMs), updateTime: iso(d.startMs + DAY) }];
  info.cloudCPlans = [{ planId: plan, name: `${d.months}-month plan` }];
}

function addCloudD(info: Record<string, unknown>, d: Detail) {
  const r = d.ctx.random;
  const orderId = r.digits(15);
  const instanceId = `i-${r.alnum(12)}`;
  const productCode = `cmjj${r.digits(6)}`;
  const price = Math.round(d.commit);
  // Marketplace D records keep epoch-millisecond integers for times (§2.10, A10).
  info.cloudDEntitlements = [{
    ActiveAddress: `https://d.sandbox.example/${instanceId}`, AppJson: '{}', AutoRenewal: d.autoRenew, BeganOn: d.startMs,
    ComponentJson: '{}', Constraints: '', CreatedOn: d.startMs - HOUR, EndOn: d.openEnded ? null : d.endMs, ExtendJson: '{}', HostJson: '{}',
    InstanceId: instanceId, IsTrial: false, LicenseCode: r.alnum(16).toUpperCase(), Modules: [], OrderId: orderId,
    ProductCode: productCode, ProductName: d.product.name, ProductSkuCode: `${productCode}-sku`, ProductType: 'SAAS',
    RelationalData: '', Status: d.status === 'ACTIVE' ? 'NORMAL' : 'RELEASED', SupplierName: 'Sandbox Software Inc.',
  }];
  info.cloudDOrders = [{
    AccountQuantity: 1, AliUid: r.digits(16), Components: {}, CouponPrice: 0, CreatedOn: d.startMs - HOUR, InstanceIds: [instanceId],
    OrderId: orderId, OrderStatus: 'PAID', OrderType: 'BUY', OriginalPrice: price, PaidOn: d.startMs - HOUR + 5 * 60_000,
    PayStatus: 'PAID', PaymentPrice: price, PeriodType: 'Year', ProductCode: productCode, ProductName: d.product.name,
    ProductSkuCode: `${productCode}-sku`, Quantity: 1, RequestId: r.guid().toUpperCase(), SupplierCompanyName: 'Sandbox Software Inc.',
    SupplierTelephones: ['+86-571-0000-0000'], TotalPrice: price,
  }];
}

type TermPlan = { divided: boolean; commit: number; startMs: number; endMs: number | undefined; lastMs: number; dimensionKeys: string[] };

/** The current term first (its id is the entitlement's entitlementTermID), then sub terms, then an older term. */
export function makeTerms(ctx: GenContext, entitlement: Entitlement, counter: TermCounter, plan: TermPlan): EntitlementTerm[] {
  const r = ctx.random;
  const snapshot = { currency: entitlement.info.currency, commitAmount: entitlement.info.commitAmount, billingCycle: entitlement.info.billingCycle, autoRenew: entitlement.info.autoRenew };
  const term = (commit: number, startMs: number, endMs: number | undefined, info: Record<string, unknown>): EntitlementTerm => {
    const credit = r.chance(0.3) ? r.amount(100, 10_000) : 0;
    const result: EntitlementTerm = {
      id: recordId('term', counter.next++),
      entitlementID: entitlement.id,
      externalEntitlementID: entitlement.externalID,
      buyerID: entitlement.buyerID,
      offerID: entitlement.offerID,
      productID: entitlement.productID,
      organizationID: entitlement.organizationID,
      partner: entitlement.partner,
      service: entitlement.service,
      commitAmount: commit,
      usedCommitAmount: round2(commit * r.next()),
      creditAmount: credit,
      usedCreditAmount: round2(credit * r.next()),
      reportedAmount: round2(r.amount(0, 5_000)),
      creationTime: entitlement.creationTime,
      startTime: iso(startMs),
      endTime: endMs === undefined ? null : iso(endMs),
      lastUpdateTime: iso(plan.lastMs),
      entitlementInfo: snapshot,
      info,
    };
    if (entitlement.partner === 'cloudA' && plan.dimensionKeys.length > 0 && r.chance(0.6)) {
      // Marketplace A takes integer quantities only; the fractional parts are kept here (§2.2).
      result.info.dimensionQuantityDecimalParts = Object.fromEntries(plan.dimensionKeys.map((key) => [key, r.pick([0.25, 0.5, 0.75, 0.125])]));
    }
    return result;
  };
  const type = plan.commit > 0 ? 'COMMIT' : 'USAGE';
  const current = term(plan.commit, plan.startMs, plan.endMs, { type });
  const terms = [current];
  if (plan.divided && plan.commit > 0) {
    const parts = r.int(2, 4);
    const span = plan.endMs === undefined ? 365 * DAY : plan.endMs - plan.startMs;
    const share = round2(plan.commit / parts);
    const subs: EntitlementTerm[] = [];
    for (let k = 0; k < parts; k++) {
      const amount = k === parts - 1 ? round2(plan.commit - share * (parts - 1)) : share;
      const startMs = plan.startMs + Math.floor((span * k) / parts);
      const endMs = plan.startMs + Math.floor((span * (k + 1)) / parts);
      subs.push(term(amount, startMs, endMs, { type, parentEntitlementTermId: current.id }));
    }
    current.info.isCommitDivided = true;
    current.info.subEntitlementTermIds = subs.map((sub) => sub.id);
    terms.push(...subs);
  } else {
    current.info.isCommitDivided = false;
  }
  if (r.chance(0.25)) {
    terms.push(term(round2(plan.commit * 0.9), plan.startMs - 365 * DAY, plan.startMs, { type, isCommitDivided: false }));
  }
  if (r.chance(0.2)) terms.push(term(0, plan.startMs, plan.endMs, { type: 'CREDIT', isCommitDivided: false }));
  return terms;
}
