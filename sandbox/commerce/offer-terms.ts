// An offer's priced terms checked against its product (A19): metering dimensions (info.dimensions),
// commits (info.commits), the currency (info.currency), payment installments (info.paymentInstallments)
// and marketplace A's contract duration (info.cloudAAgreementDuration). Each refusal is a 400 naming the
// field, what it must be and what it got, in words a deal desk reads.
import { badRequest } from './errors.ts';
import { isPlainObject } from './http-util.ts';
import type { Product, ProductDimension } from './types.ts';

/** subStatus of a draft held for publishing: saved, not sent to the marketplace (A19). */
export const HELD_DRAFT = 'DRAFT';

/** The info fields this check is about; a draft update that sends none of them leaves its terms unchecked. */
export const TERM_FIELDS = ['dimensions', 'commits', 'currency', 'paymentInstallments', 'cloudAAgreementDuration', 'commitAmount'] as const;

const CURRENCY = /^[A-Z]{3}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
/** ISO 8601 durations of years, months, weeks and days (P12M, P1Y, P365D), as marketplace A's contracts take. */
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/;

const describe = (product: Product) => `product ${product.id} (${product.name})`;
const sent = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));
const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function listOf(info: Record<string, unknown>, field: 'dimensions' | 'commits' | 'paymentInstallments', shape: string): Record<string, unknown>[] {
  const value = info[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => !isPlainObject(item))) throw badRequest(`info.${field} must be a list of ${shape}, got ${sent(value)}`, { field: `info.${field}` });
  return value as Record<string, unknown>[];
}

function dimensionOf(product: Product, key: unknown, field: string, type: ProductDimension['type']): ProductDimension {
  const dimensions = product.info.dimensions ?? [];
  const dimension = typeof key === 'string' ? dimensions.find((d) => d.key === key) : undefined;
  if (!dimension) throw badRequest(`${field}: ${describe(product)} has no dimension ${sent(key)}; its dimensions are ${dimensions.map((d) => d.key).join(', ') || 'none'}`, { field });
  if (dimension.type !== type) {
    const where = dimension.type === 'COMMIT' ? 'info.commits' : 'info.dimensions';
    throw badRequest(`${field}: dimension ${dimension.key} of ${describe(product)} is ${dimension.type === 'COMMIT' ? 'bought up front' : 'metered usage'}; price it in ${where}`, { field });
  }
  return dimension;
}

function noRepeats(items: readonly Record<string, unknown>[], list: string) {
  const seen = new Set<unknown>();
  items.forEach((item, index) => {
    if (seen.has(item.key)) throw badRequest(`info.${list}[${index}].key: dimension ${sent(item.key)} is named twice; name each dimension once`, { field: `info.${list}[${index}].key` });
    seen.add(item.key);
  });
}

/** The installments' total must be the offer's total: info.commitAmount, else the commits' quantity times price. */
function checkInstallments(info: Record<string, unknown>, commits: readonly Record<string, unknown>[], currency: string) {
  const installments = listOf(info, 'paymentInstallments', '{chargeDate, chargeAmount, currency?}');
  if (installments.length === 0) return;
  let sum = 0;
  installments.forEach((item, index) => {
    const field = `info.paymentInstallments[${index}]`;
    if (typeof item.chargeDate !== 'string' || !DATE_TIME.test(item.chargeDate) || Number.isNaN(Date.parse(item.chargeDate))) {
      throw badRequest(`${field}.chargeDate must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z, got ${sent(item.chargeDate)}`, { field: `${field}.chargeDate` });
    }
    if (!isAmount(item.chargeAmount)) throw badRequest(`${field}.chargeAmount must be an amount of at least 0, got ${sent(item.chargeAmount)}`, { field: `${field}.chargeAmount` });
    if (item.currency !== undefined && item.currency !== currency) throw badRequest(`${field}.currency must be the offer's currency ${currency}, got ${sent(item.currency)}`, { field: `${field}.currency` });
    sum += item.chargeAmount;
  });
  const fromCommits = commits.reduce((total, commit) => total + (commit.quantity as number) * (commit.price as number), 0);
  const total = info.commitAmount !== undefined ? (info.commitAmount as number) : commits.length > 0 ? fromCommits : undefined;
  const totalFrom = info.commitAmount !== undefined ? 'info.commitAmount' : 'the commits, quantity times price';
  if (total === undefined) throw badRequest('info.paymentInstallments need a total to add up to: give info.commitAmount or info.commits', { field: 'info.paymentInstallments' });
  // Compared in cents, so 0.1 + 0.2 adds up to 0.3.
  if (Math.round(sum * 100) !== Math.round(total * 100)) {
    throw badRequest(`info.paymentInstallments add up to ${sum.toFixed(2)} ${currency}, not the offer's total ${total.toFixed(2)} ${currency} (${totalFrom}); make the installments add up to the total`, { field: 'info.paymentInstallments' });
  }
}

function checkDuration(info: Record<string, unknown>, product: Product) {
  const duration = info.cloudAAgreementDuration;
  if (duration === undefined || duration === null) return;
  if (product.partner !== 'cloudA') {
    throw badRequest(`info.cloudAAgreementDuration is marketplace A's (cloudA); ${describe(product)} is on ${product.partner}`, { field: 'info.cloudAAgreementDuration' });
  }
  const parts = typeof duration === 'string' ? DURATION.exec(duration) : null;
  if (!parts || parts.slice(1).every((part) => part === undefined || Number(part) === 0)) {
    throw badRequest(`info.cloudAAgreementDuration must be an ISO 8601 duration longer than zero such as P12M or P36M, got ${sent(duration)}`, { field: 'info.cloudAAgreementDuration' });
  }
}

/**
 * Checks an offer's terms against its product. A draft that names no dimension, commit or installment
 * is a commit amount in any ISO 4217 currency, as drafts were before products had prices (A9).
 */
export function checkOfferTerms(product: Product, info: unknown): void {
  if (!isPlainObject(info)) return;
  const currency = info.currency === undefined || info.currency === null ? 'USD' : info.currency;
  if (typeof currency !== 'string' || !CURRENCY.test(currency)) throw badRequest(`info.currency must be an ISO 4217 code of three capital letters such as USD, got ${sent(info.currency)}`, { field: 'info.currency' });
  if (info.commitAmount !== undefined && !isAmount(info.commitAmount)) throw badRequest(`info.commitAmount must be an amount of at least 0, got ${sent(info.commitAmount)}`, { field: 'info.commitAmount' });

  const metered = listOf(info, 'dimensions', '{key, rate}');
  metered.forEach((item, index) => {
    dimensionOf(product, item.key, `info.dimensions[${index}].key`, 'METERED');
    if (!isAmount(item.rate)) throw badRequest(`info.dimensions[${index}].rate must be a price per unit of at least 0, got ${sent(item.rate)}`, { field: `info.dimensions[${index}].rate` });
  });
  noRepeats(metered, 'dimensions');

  const commits = listOf(info, 'commits', '{key, quantity, price}');
  commits.forEach((item, index) => {
    dimensionOf(product, item.key, `info.commits[${index}].key`, 'COMMIT');
    if (typeof item.quantity !== 'number' || !Number.isSafeInteger(item.quantity) || item.quantity < 0) {
      throw badRequest(`info.commits[${index}].quantity must be a whole number of units of at least 0, got ${sent(item.quantity)}`, { field: `info.commits[${index}].quantity` });
    }
    if (!isAmount(item.price)) throw badRequest(`info.commits[${index}].price must be a price per unit of at least 0, got ${sent(item.price)}`, { field: `info.commits[${index}].price` });
  });
  noRepeats(commits, 'commits');

  if (metered.length + commits.length > 0) {
    const currencies = product.info.currencies ?? [];
    if (!currencies.includes(currency)) {
      throw badRequest(`info.currency: ${describe(product)} is priced in ${currencies.join(', ') || 'no currency'}, not in ${currency}; price the offer in one of those`, { field: 'info.currency' });
    }
  }
  checkInstallments(info, commits, currency);
  checkDuration(info, product);
}
