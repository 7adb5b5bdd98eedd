// The private-offer draft a CRM opportunity (deal) asks for, CRM-neutral (issue #25 section 1, the
// CRM-to-commerce direction): each CRM side reads its record into these neutral values (its Private Offer
// Requested checkbox, product, buyer and commerce contacts through its own relations) and this makes the
// draft request (POST {O}/draftOffer, A9), or the refusal, once for Salesforce, HubSpot and Dynamics.
import type { OpportunityIdField } from '../../commerce/crm-ids.ts';
import type { Ask } from '../../flows/crm-to-commerce.ts';
import { crmText, currencyProblem, dateOnly, isCrmTrue, nonNegativeAmount, opportunityCurrency } from '../cosell-values.ts';
import { durationAsk, lineCurrencyProblem, offerLinesAsk, paymentScheduleAsk, type OfferLine, type OfferLineValues, type ScheduledCharge } from './offer-lines.ts';

export type DraftOfferRequest<IdField extends OpportunityIdField> = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  /** The commit (a record without product lines), in the opportunity's own currency; with lines, the currency alone. */
  info?: { commitAmount?: number; currency: string };
  /** The commerce contacts of the record (those of its contacts that came from the commerce side). */
  contactIds?: string[];
  /** The CRM id under the asking CRM's field, by which a create whose answer was lost is found again. */
  metaInfo: { [K in IdField]: string };
  /** The opportunity's product lines (issue #28), priced on the product by the flow's target (offer-lines.ts offerTermsOn). */
  lines?: OfferLine[];
  /** The agreement's duration in months (marketplace A only, A19). */
  durationMonths?: number;
  /** The payment schedule, in the offer's currency. */
  charges?: ScheduledCharge[];
  /**
   * Only where the CRM side reads an approval (issue #28): the draft is held until this is true, then
   * published to the buyer. Absent: the draft goes to the marketplace at once, as before.
   */
  publish?: boolean;
  /** Present when the connection's approval rule held: who approved, as the record names them (the rule's approvedByField). */
  approval?: { by?: string };
  /** A new expiry the seller asked for: a draft takes it, an offer with the buyer is extended to it. */
  extendTo?: string;
  /** The seller asked to cancel the offer. */
  cancel?: true;
};

/** The neutral values a CRM side reads off its record (values as the CRM sends them; this reads them). */
export type DraftOfferAskValues = {
  /** The record's Private Offer Requested checkbox. */
  requested: unknown;
  /** The record's id as the commerce side keeps it (Dynamics: the lowercase GUID). */
  crmId: string;
  name: unknown;
  productId: unknown;
  /** The marketplace buyer of the record's account (company), when it has one. */
  buyerId: unknown;
  amount: unknown;
  closeDate: unknown;
  /** The record's own currency (an ISO code), where the CRM has one (docs/crm-wire-behaviour.md). */
  currency: unknown;
  /** The org's default currency (the connector's defaultCurrency), for a record that names none of its own; USD when absent. */
  defaultCurrency?: string;
  contactIds: string[];
  /** The record's product lines (issue #28); none or absent: the offer is Commerce Product Id and Amount. */
  lines?: OfferLineValues[];
  durationMonths?: unknown;
  /** One charge a line, `YYYY-MM-DD amount` (offer-lines.ts paymentScheduleAsk). */
  paymentSchedule?: unknown;
  /** Where the side reads an approval (offerApproval): whether the offer may go to the buyer, whether a rule said so, and who approved. */
  approval?: { approved: boolean; ruled: boolean; by?: unknown };
  /** A date the seller wants the offer to expire at instead (its end, UTC). */
  newExpiry?: unknown;
  /** The record's cancel request (a checkbox). */
  cancel?: unknown;
};

/** The connection's approval rule (settings cosell.offerApproval): none, or a field and the value that means approved. */
export type OfferApprovalRule = { field: string; approvedValue: string; approvedByField?: string };

/** Whether a record's offer may go to the buyer: always without a rule; with one, when its field holds the approved value. */
export function offerApproval(rule: OfferApprovalRule | undefined, read: (field: string) => unknown): { approved: boolean; ruled: boolean; by?: unknown } {
  if (!rule) return { approved: true, ruled: false };
  return { approved: crmText(read(rule.field)) === rule.approvedValue, ruled: true, ...(rule.approvedByField && { by: read(rule.approvedByField) }) };
}

/** The refusal when no product is named (the field is called Commerce Product Id on every CRM). */
export const NO_PRODUCT = 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer';

/** A record asking for a private offer gets one draft; without a product or a buyer it is refused (`noBuyer`: the CRM's words). */
export function draftOfferAsk<IdField extends OpportunityIdField>(idField: IdField, values: DraftOfferAskValues, noBuyer: string): Ask<DraftOfferRequest<IdField>> {
  if (!isCrmTrue(values.requested)) return { asks: false };
  // With product lines the offer is theirs (one marketplace product, its dimensions); without, the record's product and Amount.
  const fromLines = values.lines?.length ? offerLinesAsk(values.lines) : undefined;
  const productID = fromLines && 'productID' in fromLines ? fromLines.productID : crmText(values.productId);
  const buyerID = crmText(values.buyerId);
  const commitAmount = fromLines ? undefined : nonNegativeAmount(values.amount);
  const duration = durationAsk(values.durationMonths);
  const schedule = paymentScheduleAsk(values.paymentSchedule);
  // The currency matters only where there is an amount, a price or a charge to send in it.
  const priced = commitAmount !== undefined || fromLines !== undefined || ('charges' in schedule && schedule.charges !== undefined);
  const currency = priced ? currencyProblem(values.currency, values.defaultCurrency) : undefined;
  const newExpiry = dateOnly(values.newExpiry);
  // A line in a currency of its own (HubSpot keeps one per line item) must be in the offer's.
  const lineCurrency = fromLines && !currency ? lineCurrencyProblem(values.lines!, opportunityCurrency(values.currency, values.defaultCurrency)) : undefined;
  const problems = [
    ...(fromLines && 'refused' in fromLines ? [fromLines.refused] : productID ? [] : [NO_PRODUCT]),
    ...(buyerID ? [] : [noBuyer]),
    ...(currency ? [currency] : []),
    ...(lineCurrency ? [lineCurrency] : []),
    ...('refused' in duration ? [duration.refused] : []),
    ...('refused' in schedule ? [schedule.refused] : []),
  ];
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const close = dateOnly(values.closeDate);
  const inCurrency = opportunityCurrency(values.currency, values.defaultCurrency);
  const approvedBy = crmText(values.approval?.by);
  return {
    asks: true,
    request: {
      name: crmText(values.name) || values.crmId,
      offerType: 'PRIVATE',
      productID,
      buyerID,
      ...(close && { expireTime: `${close}T23:59:59.000Z` }),
      ...(commitAmount !== undefined && { info: { commitAmount, currency: inCurrency } }),
      ...(fromLines && { info: { currency: inCurrency } }),
      ...(values.contactIds.length > 0 && { contactIds: [...new Set(values.contactIds)].sort() }),
      metaInfo: { [idField]: values.crmId } as DraftOfferRequest<IdField>['metaInfo'],
      ...(fromLines && 'lines' in fromLines && { lines: fromLines.lines }),
      ...('months' in duration && duration.months !== undefined && { durationMonths: duration.months }),
      ...('charges' in schedule && schedule.charges && { charges: schedule.charges }),
      ...(values.approval && { publish: values.approval.approved }),
      ...(values.approval?.approved && values.approval.ruled && { approval: approvedBy ? { by: approvedBy } : {} }),
      ...(newExpiry && { extendTo: `${newExpiry}T23:59:59.000Z` }),
      ...(isCrmTrue(values.cancel) && { cancel: true as const }),
    },
  };
}
