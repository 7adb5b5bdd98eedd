// The entitlement (with its terms) as every CRM shows it: computed once (issue #25 section 1).
import type { Entitlement, EntitlementTerm } from '../../commerce/models.ts';
import { amount, commerceCurrency, currentTerm, isoDateTime, marketplaceIds, marketplaceName } from '../values.ts';
import { agreementPdf, agreementStatus, autoRenew, installmentLines, netTermsInDays, renewalChainRoot } from './entitlement-agreement.ts';
import { computing, type CanonicalRecord } from './record.ts';

export type EntitlementWithTerms = { terms: EntitlementTerm[] };

export type CanonicalEntitlement = {
  id: string;
  name: string;
  status?: string;
  startTime?: string | null;
  endTime?: string | null;
  commitAmount?: number;
  usedCommitAmount?: number;
  creditAmount?: number;
  usedCreditAmount?: number;
  annualizedAmount?: number;
  currency: string;
  marketplace?: string;
  agreementId?: string;
  subscriptionId?: string;
  productId?: string;
  offerId?: string;
  buyerId?: string;
  // Revenue and agreement (issue #25 section 2).
  invoicedAmount?: number;
  grossAmount?: number;
  collectableAmount?: number;
  disbursedAmount?: number;
  reportedAmount?: number;
  netTermsInDays?: number;
  autoRenew?: boolean;
  agreementStatus?: string;
  agreementPdfUrl?: string | null;
  agreementPdfNote?: string | null;
  initialAgreementId?: string;
  paymentInstallments?: string;
};

export const ENTITLEMENT: CanonicalRecord<Entitlement, EntitlementWithTerms | undefined, CanonicalEntitlement> = {
  entity: 'entitlement',
  id: (record) => record.id,
  describe: {
    id: 'entitlement.id',
    name: 'entitlement.name (else the id)',
    status: 'entitlement.status',
    startTime: 'entitlement.startTime',
    endTime: 'entitlement.endTime (cleared when null)',
    commitAmount: 'current term commitAmount, else info.commitAmount',
    usedCommitAmount: 'current term usedCommitAmount',
    creditAmount: 'current term creditAmount',
    usedCreditAmount: 'current term usedCreditAmount',
    annualizedAmount: 'info.annualizedAmount',
    currency: 'info.currency (USD when absent)',
    marketplace: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    agreementId: 'A: agreement id; B: asset id; C: entitlement name; D: order id; E/F: offer id',
    subscriptionId: 'A: license ARN; B: subscription id; D: instance id',
    productId: 'entitlement.productID',
    offerId: 'entitlement.offerID',
    buyerId: 'entitlement.buyerID',
    invoicedAmount: 'info.invoicedAmount',
    grossAmount: 'info.grossAmount',
    collectableAmount: 'info.collectableAmount',
    disbursedAmount: 'info.disbursedAmount',
    reportedAmount: 'current term reportedAmount',
    netTermsInDays: 'info.netTermsInDays, else A: info.cloudANetPaymentTerm in days ("P30D" is 30)',
    autoRenew: 'info.autoRenew, else B: the subscription\'s autoRenew, D: the instance\'s AutoRenewal',
    agreementStatus: 'A: agreement status; B: subscription saasSubscriptionStatus; D: instance Status; C, E, F: none',
    agreementPdfUrl: 'A: info.cloudAAgreementPdfURL when it is a lasting link; cleared when it is a signed, expiring one',
    agreementPdfNote: 'A: when the PDF link is signed and expiring, a note that the PDF exists (the link is not stored); cleared otherwise',
    initialAgreementId: 'A: the root agreement of the renewal chain (initialAgreementId) when it is not this agreement',
    paymentInstallments: 'info.paymentInstallments as "2026-01-01: 10,000.00 USD" lines, in date order',
  },
  compute(entitlement, related) {
    if (!entitlement.id) return { ok: false, reason: 'the entitlement has no id' };
    return computing(`entitlement ${entitlement.id}`, () => {
      const term = currentTerm(entitlement, related?.terms ?? []);
      const ids = marketplaceIds(entitlement);
      const info = entitlement.info ?? {};
      const currency = commerceCurrency(info.currency);
      const pdf = agreementPdf(info);
      return {
        id: entitlement.id,
        name: entitlement.name || entitlement.id,
        status: entitlement.status,
        startTime: isoDateTime(entitlement.startTime, 'startTime'),
        endTime: isoDateTime(entitlement.endTime, 'endTime'),
        commitAmount: amount(term?.commitAmount) ?? amount(entitlement.info?.commitAmount),
        usedCommitAmount: amount(term?.usedCommitAmount),
        creditAmount: amount(term?.creditAmount),
        usedCreditAmount: amount(term?.usedCreditAmount),
        annualizedAmount: amount(entitlement.info?.annualizedAmount),
        currency,
        marketplace: marketplaceName(entitlement.partner),
        agreementId: ids.agreementId,
        subscriptionId: ids.subscriptionId,
        productId: entitlement.productID,
        offerId: entitlement.offerID,
        buyerId: entitlement.buyerID,
        invoicedAmount: amount(info.invoicedAmount),
        grossAmount: amount(info.grossAmount),
        collectableAmount: amount(info.collectableAmount),
        disbursedAmount: amount(info.disbursedAmount),
        reportedAmount: amount(term?.reportedAmount),
        netTermsInDays: netTermsInDays(info),
        autoRenew: autoRenew(entitlement),
        agreementStatus: agreementStatus(entitlement),
        agreementPdfUrl: pdf.url,
        agreementPdfNote: pdf.note,
        initialAgreementId: renewalChainRoot(info),
        paymentInstallments: installmentLines(info, currency),
      };
    });
  },
};

/**
 * The values issue #25 added (revenue and agreement): a CRM set up before them lacks their fields, so each
 * CRM's table lists its fields for them as optional (written where the org has them, and `crm-sync setup`
 * adds them); a connection keeps syncing entitlements until then.
 */
export const REVENUE_VALUES: readonly (keyof CanonicalEntitlement)[] = [
  'invoicedAmount', 'grossAmount', 'collectableAmount', 'disbursedAmount', 'reportedAmount', 'netTermsInDays', 'autoRenew',
  'agreementStatus', 'agreementPdfUrl', 'agreementPdfNote', 'initialAgreementId', 'paymentInstallments',
];
