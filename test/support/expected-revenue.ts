// The revenue and agreement facts of an entitlement as the end-to-end witness expects them (issue #25
// section 2), written from the mapping's documentation (its describe, README "Entitlement fields", the
// contract §2.3 and §2.10, docs/commerce-api-assumptions.md "Payment installments"), never from mappings/.

import { expectedDate, money } from './expected-rules.ts';

/** The note written where the agreement PDF's link is signed and expiring (README). */
export const EXPECTED_PDF_NOTE =
  'The agreement PDF exists; its link is signed and expires, so it is not stored here. Open it from the marketplace, or ask the commerce service for a fresh link (entitlement PDF).';

/** Query parameters of presigned object-storage links (S3 SigV4 and SigV2, Google Cloud Storage, Azure SAS). */
const SIGNING_PARAMETERS = new Set(['x-amz-signature', 'x-amz-credential', 'x-amz-expires', 'x-amz-security-token', 'x-goog-signature', 'x-goog-credential', 'x-goog-expires', 'signature', 'expires', 'sig', 'se', 'token']);

function isSigned(url: string): boolean {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return query.split('&').some((pair) => SIGNING_PARAMETERS.has(pair.split('=')[0]!.toLowerCase()));
}

const first = (list: unknown): Record<string, any> | undefined => (Array.isArray(list) && list.length > 0 ? list[0] : undefined);
const flag = (value: unknown) => (value === true || value === false ? value : undefined);
const word = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** 1234567.5 -> "1,234,567.50" (two decimals, comma thousands). */
function grouped(value: number): string {
  const [whole, cents] = Math.abs(value).toFixed(2).split('.');
  return `${value < 0 ? '-' : ''}${whole!.replace(/\B(?=(\d{3})+$)/g, ',')}.${cents}`;
}

export function expectedRevenueFacts(entitlement: any, term: Record<string, unknown> | undefined, currency: string, id: string) {
  const info: Record<string, any> = entitlement.info ?? {};
  const partner = entitlement.partner;
  const agreement: Record<string, any> = info.cloudAAgreement ?? {};

  let netTerms: number | undefined;
  if (Number.isInteger(info.netTermsInDays) && info.netTermsInDays >= 0) netTerms = info.netTermsInDays;
  else if (typeof info.cloudANetPaymentTerm === 'string' && /^P\d+D$/.test(info.cloudANetPaymentTerm)) netTerms = parseInt(info.cloudANetPaymentTerm.slice(1), 10);

  let autoRenew = flag(info.autoRenew);
  if (autoRenew === undefined && partner === 'cloudB') autoRenew = flag(first(info.cloudBSubscriptions)?.autoRenew);
  if (autoRenew === undefined && partner === 'cloudD') autoRenew = flag(first(info.cloudDEntitlements)?.AutoRenewal);

  const agreementStatus =
    partner === 'cloudA' ? word(agreement.status) : partner === 'cloudB' ? word(first(info.cloudBSubscriptions)?.saasSubscriptionStatus) : partner === 'cloudD' ? word(first(info.cloudDEntitlements)?.Status) : undefined;

  const pdf = word(info.cloudAAgreementPdfURL);
  const root = word(agreement.initialAgreementId);

  const installments = (Array.isArray(info.paymentInstallments) ? info.paymentInstallments : [])
    .map((item: Record<string, any>, i: number) => {
      const value = money(item?.chargeAmount) ?? money(item?.amount);
      if (value === undefined) return undefined;
      const date = expectedDate(item.chargeDate ?? item.chargeOn, `entitlement ${id}: paymentInstallments[${i}].chargeDate`) ?? 'no date';
      return `${date}: ${grouped(value)} ${word(item.currency) ?? word(item.currencyCode) ?? currency}`;
    })
    .filter((line: string | undefined): line is string => line !== undefined)
    .sort();

  return {
    invoicedAmount: money(info.invoicedAmount),
    grossAmount: money(info.grossAmount),
    collectableAmount: money(info.collectableAmount),
    disbursedAmount: money(info.disbursedAmount),
    reportedAmount: money(term?.reportedAmount),
    netTermsInDays: netTerms,
    autoRenew,
    agreementStatus,
    agreementPdfUrl: pdf === undefined ? undefined : isSigned(pdf) ? null : pdf,
    agreementPdfNote: pdf === undefined ? undefined : isSigned(pdf) ? EXPECTED_PDF_NOTE : null,
    initialAgreementId: root !== undefined && root !== word(agreement.agreementId) ? root : undefined,
    paymentInstallments: installments.length > 0 ? installments.join('\n') : undefined,
  };
}
