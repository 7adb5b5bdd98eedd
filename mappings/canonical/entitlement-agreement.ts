// The revenue and agreement facts of an entitlement (issue #25 section 2) that need more than reading
// one field: net terms from marketplace A's ISO duration, auto-renew and agreement status from the
// marketplace's own record, the agreement PDF (never a signed, expiring link), the renewal chain and
// the payment installments as readable lines. A value the marketplace does not give stays undefined:
// nothing is invented (undefined is not written, so it never overwrites a CRM value).
import { isSecretParam } from '../../store/redact.ts';
import type { Entitlement, EntitlementInfo } from '../../commerce/models.ts';
import { amount, isoDate } from '../values.ts';

const first = (list: unknown) => (Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined) : undefined);
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const bool = (value: unknown) => (typeof value === 'boolean' ? value : undefined);

/** info.netTermsInDays; else marketplace A's cloudANetPaymentTerm when it is a whole number of days ("P30D"). */
export function netTermsInDays(info: EntitlementInfo): number | undefined {
  const days = info.netTermsInDays;
  if (typeof days === 'number' && Number.isInteger(days) && days >= 0) return days;
  const duration = typeof info.cloudANetPaymentTerm === 'string' ? /^P(\d+)D$/.exec(info.cloudANetPaymentTerm) : null;
  return duration ? Number(duration[1]) : undefined;
}

/** info.autoRenew; else the marketplace's own flag (B: the subscription's autoRenew, D: the instance's AutoRenewal). */
export function autoRenew(entitlement: Entitlement): boolean | undefined {
  const info = entitlement.info ?? {};
  const own = bool(info.autoRenew);
  if (own !== undefined) return own;
  if (entitlement.partner === 'cloudB') return bool(first(info.cloudBSubscriptions)?.autoRenew);
  if (entitlement.partner === 'cloudD') return bool(first(info.cloudDEntitlements)?.AutoRenewal);
  return undefined;
}

/**
 * The marketplace's own agreement status, where the contract names one (§2.10): A the agreement's
 * status, B the subscription's saasSubscriptionStatus, D the instance's Status. C, E and F give none.
 */
export function agreementStatus(entitlement: Entitlement): string | undefined {
  const info = entitlement.info ?? {};
  switch (entitlement.partner) {
    case 'cloudA':
      return text(info.cloudAAgreement?.status);
    case 'cloudB':
      return text(first(info.cloudBSubscriptions)?.saasSubscriptionStatus);
    case 'cloudD':
      return text(first(info.cloudDEntitlements)?.Status);
    default:
      return undefined;
  }
}

/**
 * Query parameters that make a URL a signed, expiring link: object-storage presigning (S3 SigV4 and
 * SigV2, Google Cloud Storage V4 and V2, Azure SAS). Such a link stops working within hours, so it is
 * never stored in a CRM.
 */
const SIGNED = /[?&](x-amz-signature|x-amz-credential|x-amz-expires|x-amz-security-token|x-goog-signature|x-goog-credential|x-goog-expires|signature|expires|sig|se|token)=/i;

/**
 * A link that may be stored in a CRM for anyone to open: https, no credentials in it (user:password, a
 * query parameter that signs or authorises, as the log redaction knows them: store/redact.ts, or a
 * fragment carrying one), and no expiry. Anything else is not stored.
 */
function isLastingLink(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password || SIGNED.test(text)) return false;
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
  return ![...url.searchParams.keys(), ...fragment.keys()].some(isSecretParam);
}

export const PDF_NOTE =
  'The agreement PDF exists; its link is signed and expires, so it is not stored here. Open it from the marketplace, or ask the commerce service for a fresh link (entitlement PDF).';

/**
 * Marketplace A's agreement PDF: a lasting URL is kept (and the note cleared); a signed, expiring one is
 * not stored: the URL is cleared and the note says the PDF exists. No PDF: neither is written.
 */
export function agreementPdf(info: EntitlementInfo): { url?: string | null; note?: string | null } {
  const url = text(info.cloudAAgreementPdfURL);
  if (!url) return {};
  return isLastingLink(url) ? { url, note: null } : { url: null, note: PDF_NOTE };
}

/** Marketplace A's renewal chain: the root agreement this one renews (initialAgreementId), when it is not itself. */
export function renewalChainRoot(info: EntitlementInfo): string | undefined {
  const root = text(info.cloudAAgreement?.initialAgreementId);
  return root && root !== text(info.cloudAAgreement?.agreementId) ? root : undefined;
}

const MONEY = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The payment installments as "2026-01-01: 10,000.00 USD" lines, in date order. The contract does not
 * show a PaymentInstallment's fields (§2.11); read leniently (docs/commerce-api-assumptions.md): the date
 * from chargeDate or chargeOn, the amount from chargeAmount or amount, the currency from the installment
 * (currency or currencyCode), else the entitlement's. An installment without a readable amount is left out.
 */
export function installmentLines(info: EntitlementInfo, currency: string): string | undefined {
  const list = Array.isArray(info.paymentInstallments) ? (info.paymentInstallments as Record<string, unknown>[]) : [];
  const lines = list
    .map((item, index) => {
      const value = amount(item?.chargeAmount) ?? amount(item?.amount);
      if (value === undefined) return undefined;
      const when = item.chargeDate ?? item.chargeOn;
      const date = typeof when === 'string' || typeof when === 'number' ? isoDate(when, `paymentInstallments[${index}].chargeDate`) : undefined;
      return { date: date ?? '', line: `${date ?? 'no date'}: ${MONEY.format(value)} ${text(item.currency) ?? text(item.currencyCode) ?? currency}` };
    })
    .filter((entry) => entry !== undefined)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return lines.length ? lines.map((entry) => entry.line).join('\n') : undefined;
}
