// The private-offer draft a CRM opportunity (deal) asks for, CRM-neutral (issue #25 section 1, the
// CRM-to-commerce direction): each CRM side reads its record into these neutral values (its Private Offer
// Requested checkbox, product, buyer and commerce contacts through its own relations) and this makes the
// draft request (POST {O}/draftOffer, A9), or the refusal, once for Salesforce, HubSpot and Dynamics.
import type { OpportunityIdField } from '../../commerce/crm-ids.ts';
import type { Ask } from '../../flows/crm-to-commerce.ts';
import { crmText, currencyProblem, dateOnly, isCrmTrue, nonNegativeAmount, opportunityCurrency } from '../cosell-values.ts';

export type DraftOfferRequest<IdField extends OpportunityIdField> = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  /** The commit, in the opportunity's own currency. */
  info?: { commitAmount: number; currency: string };
  /** The commerce contacts of the record (those of its contacts that came from the commerce side). */
  contactIds?: string[];
  /** The CRM id under the asking CRM's field, by which a create whose answer was lost is found again. */
  metaInfo: { [K in IdField]: string };
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
};

/** The refusal when no product is named (the field is called Commerce Product Id on every CRM). */
export const NO_PRODUCT = 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer';

/** A record asking for a private offer gets one draft; without a product or a buyer it is refused (`noBuyer`: the CRM's words). */
export function draftOfferAsk<IdField extends OpportunityIdField>(idField: IdField, values: DraftOfferAskValues, noBuyer: string): Ask<DraftOfferRequest<IdField>> {
  if (!isCrmTrue(values.requested)) return { asks: false };
  const productID = crmText(values.productId);
  const buyerID = crmText(values.buyerId);
  const commitAmount = nonNegativeAmount(values.amount);
  // The currency matters only where there is an amount to send in it.
  const currency = commitAmount !== undefined ? currencyProblem(values.currency, values.defaultCurrency) : undefined;
  if (!productID || !buyerID || currency) return { asks: true, refused: [...(productID ? [] : [NO_PRODUCT]), ...(buyerID ? [] : [noBuyer]), ...(currency ? [currency] : [])].join('\n') };
  const close = dateOnly(values.closeDate);
  return {
    asks: true,
    request: {
      name: crmText(values.name) || values.crmId,
      offerType: 'PRIVATE',
      productID,
      buyerID,
      ...(close && { expireTime: `${close}T23:59:59.000Z` }),
      ...(commitAmount !== undefined && { info: { commitAmount, currency: opportunityCurrency(values.currency, values.defaultCurrency) } }),
      ...(values.contactIds.length > 0 && { contactIds: [...new Set(values.contactIds)].sort() }),
      metaInfo: { [idField]: values.crmId } as DraftOfferRequest<IdField>['metaInfo'],
    },
  };
}
