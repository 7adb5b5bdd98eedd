// A private offer's terms from the opportunity's products, CRM-neutral (issue #28 section 2): each CRM
// side reads its product lines (Salesforce OpportunityLineItem, HubSpot deal line items, Dynamics
// opportunityproduct) into OfferLineValues, and this decides, once for every CRM, whether they make one
// offer (an offer is for one marketplace product: every line must name the same one) and what its terms
// are once the product's dimensions are known (A18: a COMMIT dimension is bought up front, info.commits; a
// METERED one is a rate per unit of usage, info.dimensions; A19 checks both against the product).
import type { CommitDimension, MeteringDimension, PaymentInstallment, Product } from '../../commerce/models.ts';
import { crmText, nonNegativeAmount } from '../cosell-values.ts';

/** One product line as a CRM side reads it (values as the CRM sends them). */
export type OfferLineValues = {
  /** The CRM product's name, which a refusal names so the seller finds the line. */
  product: unknown;
  /** The marketplace product the CRM product stands for (the catalogue's Commerce Product Id). */
  productId: unknown;
  /** The product's dimension the line prices (the catalogue's Commerce Dimension Key). */
  dimensionKey: unknown;
  quantity: unknown;
  /** The line's price per unit (Salesforce: Sales Price, UnitPrice), in the opportunity's currency. */
  unitPrice: unknown;
  /** The line's own currency, where the CRM keeps one apart from the record's (HubSpot's hs_line_item_currency_code). */
  currency?: unknown;
};

/** A line as the offer takes it: a dimension, how many units, at what price per unit. */
export type OfferLine = { dimensionKey: string; quantity: number; unitPrice: number };

/** One charge of a payment schedule: a day and an amount in the offer's currency. */
export type ScheduledCharge = { chargeDate: string; chargeAmount: number };

/** An offer's priced terms as the draft body takes them (A19). */
export type OfferTerms = { commits?: CommitDimension[]; dimensions?: MeteringDimension[]; paymentInstallments?: PaymentInstallment[]; cloudAAgreementDuration?: string };

const nameOf = (line: OfferLineValues) => crmText(line.product) || 'a product without a name';
const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * The lines as one offer's: the marketplace product they all name and the lines sorted by dimension, or
 * why they cannot be one offer, in words naming the lines' products.
 */
export function offerLinesAsk(lines: OfferLineValues[]): { productID: string; lines: OfferLine[] } | { refused: string } {
  const problems: string[] = [];
  const unkeyed = lines.filter((line) => !crmText(line.productId) || !crmText(line.dimensionKey));
  if (unkeyed.length > 0) {
    problems.push(`products: ${quoted(unkeyed.map(nameOf))} ${unkeyed.length === 1 ? 'is' : 'are'} not from the marketplace catalogue (no Commerce Product Id and Commerce Dimension Key on the product); replace ${unkeyed.length === 1 ? 'it' : 'them'} with the catalogue's products`);
  }
  const keyed = lines.filter((line) => !unkeyed.includes(line));
  const byProduct = new Map<string, string[]>();
  for (const line of keyed) byProduct.set(crmText(line.productId), [...(byProduct.get(crmText(line.productId)) ?? []), nameOf(line)]);
  if (byProduct.size > 1) {
    const named = [...byProduct].map(([id, names]) => `${id} (${names.join(', ')})`).join(' and ');
    problems.push(`products: an offer is for one marketplace product, and these lines name ${named}; keep the lines of one product`);
  }
  const byKey = new Map<string, string[]>();
  for (const line of keyed) byKey.set(crmText(line.dimensionKey), [...(byKey.get(crmText(line.dimensionKey)) ?? []), nameOf(line)]);
  for (const [key, names] of byKey) if (names.length > 1) problems.push(`products: ${quoted(names)} all price the dimension ${key}; keep one line for it`);
  for (const line of keyed) {
    if (nonNegativeAmount(line.quantity) === undefined) problems.push(`products: "${nameOf(line)}" has no quantity of zero or more`);
    if (nonNegativeAmount(line.unitPrice) === undefined) problems.push(`products: "${nameOf(line)}" has no sales price of zero or more`);
  }
  if (problems.length > 0) return { refused: problems.join('\n') };
  const made = keyed.map((line) => ({ dimensionKey: crmText(line.dimensionKey), quantity: nonNegativeAmount(line.quantity)!, unitPrice: nonNegativeAmount(line.unitPrice)! }));
  return { productID: [...byProduct.keys()][0]!, lines: made.sort((a, b) => (a.dimensionKey < b.dimensionKey ? -1 : a.dimensionKey > b.dimensionKey ? 1 : 0)) };
}

/**
 * The lines priced in another currency than the offer's (an offer has one currency, A9), named so the
 * seller finds them; none when every line that names a currency names the offer's.
 */
export function lineCurrencyProblem(lines: OfferLineValues[], offerCurrency: string): string | undefined {
  const other = lines.filter((line) => crmText(line.currency) && crmText(line.currency).toUpperCase() !== offerCurrency);
  if (other.length === 0) return undefined;
  return `products: ${other.map((line) => `"${nameOf(line)}" is priced in ${crmText(line.currency).toUpperCase()}`).join(', ')}, and the offer is in ${offerCurrency} (the record's currency); price every line in ${offerCurrency}`;
}

/**
 * A payment schedule as a seller types it: one charge a line, `YYYY-MM-DD amount` (a space, tab, comma or
 * semicolon between; the amount in the opportunity's currency, a dot for decimals). Empty: none.
 */
export function paymentScheduleAsk(text: unknown): { charges?: ScheduledCharge[] } | { refused: string } {
  const lines = crmText(text).split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (lines.length === 0) return {};
  const charges: ScheduledCharge[] = [];
  const problems: string[] = [];
  lines.forEach((line, index) => {
    const match = /^(\d{4}-\d{2}-\d{2})[\s,;]+([0-9]+(?:\.[0-9]+)?)$/.exec(line);
    const day = match ? new Date(`${match[1]}T00:00:00.000Z`) : undefined;
    if (!match || !day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== match[1]) problems.push(`payment schedule: line ${index + 1} "${line}" is not a date and an amount such as "2027-01-15 12000.00"`);
    else charges.push({ chargeDate: `${match[1]}T00:00:00.000Z`, chargeAmount: Number(match[2]) });
  });
  return problems.length ? { refused: problems.join('\n') } : { charges: charges.sort((a, b) => (a.chargeDate < b.chargeDate ? -1 : a.chargeDate > b.chargeDate ? 1 : 0)) };
}

/** An agreement duration in whole months (1 to 120), or why not; empty: none. */
export function durationAsk(value: unknown): { months?: number } | { refused: string } {
  if (value === null || value === undefined || value === '') return {};
  const months = Number(value);
  if (!Number.isInteger(months) || months < 1 || months > 120) return { refused: `duration: ${crmText(value)} is not a whole number of months from 1 to 120` };
  return { months };
}

/**
 * The offer's priced terms on its product (A18, A19): each line's dimension as the product defines it
 * (COMMIT: quantity at a price per unit; METERED: the price is the rate per unit of usage, the quantity is
 * not sent), the duration where the product's marketplace takes one (only marketplace A's
 * cloudAAgreementDuration, A19), the charges as installments. Or why not, naming the product.
 */
export function offerTermsOn(product: Product, ask: { lines?: OfferLine[]; durationMonths?: number; charges?: ScheduledCharge[] }): { terms: OfferTerms } | { refused: string } {
  const dimensions = new Map((product.info?.dimensions ?? []).map((dimension) => [dimension.key, dimension]));
  const label = product.name ? `${product.id} (${product.name})` : product.id;
  const problems: string[] = [];
  const commits: CommitDimension[] = [];
  const metered: MeteringDimension[] = [];
  for (const line of ask.lines ?? []) {
    const dimension = dimensions.get(line.dimensionKey);
    if (!dimension) problems.push(`products: ${line.dimensionKey} is not a dimension of product ${label}; the catalogue has ${[...dimensions.keys()].join(', ') || 'none'}`);
    else if (dimension.type === 'COMMIT') commits.push({ key: line.dimensionKey, quantity: line.quantity, price: line.unitPrice });
    else if (dimension.type === 'METERED') metered.push({ key: line.dimensionKey, rate: line.unitPrice });
    else problems.push(`products: the dimension ${line.dimensionKey} of product ${label} is of type ${dimension.type ?? 'none'}, which an offer cannot price (only COMMIT and METERED)`);
  }
  if (ask.durationMonths !== undefined && product.partner !== 'cloudA') {
    problems.push(`duration: product ${label} is sold on ${product.partner ?? 'a marketplace'}, which takes no agreement duration on an offer (only marketplace A, cloudA, does); clear the duration`);
  }
  if (problems.length > 0) return { refused: problems.join('\n') };
  return {
    terms: {
      ...(commits.length > 0 && { commits }),
      ...(metered.length > 0 && { dimensions: metered }),
      ...(ask.charges && { paymentInstallments: ask.charges.map((charge) => ({ chargeDate: charge.chargeDate, chargeAmount: charge.chargeAmount })) }),
      ...(ask.durationMonths !== undefined && { cloudAAgreementDuration: `P${ask.durationMonths}M` }),
    },
  };
}
