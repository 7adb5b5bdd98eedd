// A HubSpot deal's private offer from its products (issue #28 section 2): the deal's line items (made
// from the product library's products, which the catalogue keys by commerce_product_id and
// commerce_dimension_key) as the offer's lines, and the deal properties a seller fills for the offer's
// own terms, its approval, a new expiry and a cancel request. Wire facts: docs/crm-wire-behaviour.md,
// HubSpot "Products and line items" (line items belong to one deal, associated deals -> line_items; a
// line item names its product by hs_product_id; its currency is hs_line_item_currency_code in an account
// with several currencies).
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { OfferLineValues } from '../canonical/offer-lines.ts';
import { crmText } from '../cosell-values.ts';

/** The deal properties of the offer (setup makes them: mappings/hubspot/schema.ts); optional, so an account set up before them asks as it did. */
export const DEAL_OFFER_PROPERTIES = {
  durationMonths: 'offer_duration_months',
  paymentSchedule: 'offer_payment_schedule',
  approvalStatus: 'offer_approval_status',
  approvedBy: 'offer_approved_by',
  approvedAt: 'offer_approved_at',
  newExpiry: 'offer_new_expiry_date',
  cancel: 'offer_cancel_requested',
} as const;

/** The options of offer_approval_status: the internal value is the label, so a rule names it as a seller sees it. */
export const DEAL_OFFER_APPROVAL_OPTIONS = ['Pending', 'Approved', 'Rejected'] as const;

/** What a line item gives the offer (hs_line_item_currency_code exists only in a multi-currency account; a read asking for it elsewhere gets none). */
const LINE_ITEM_PROPERTIES = ['name', 'hs_product_id', 'quantity', 'price', 'hs_line_item_currency_code'];
/** The catalogue's keys on a product (crm/hubspot/catalogue-setup.ts makes them). */
const PRODUCT_PROPERTIES = ['name', 'commerce_product_id', 'commerce_dimension_key'];

/** A line item, with the product it was made from (none: a line item of its own), as an offer line's neutral values. */
export function lineItemValues(lineItem: CrmRecord, product: CrmRecord | undefined): OfferLineValues {
  return {
    // The line item's own name (copied from its product when it was made), else the product's.
    product: crmText(lineItem.name) || product?.name,
    productId: product?.commerce_product_id,
    dimensionKey: product?.commerce_dimension_key,
    quantity: lineItem.quantity,
    unitPrice: lineItem.price,
    currency: lineItem.hs_line_item_currency_code,
  };
}

/**
 * The line items of each deal as offer lines: the deals' line item associations, one batch read of the
 * line items, one batch read of their products (three calls a page, more only past 100 ids a read).
 */
export async function dealOfferLines(crm: CrmConnector, dealIds: string[]): Promise<Map<string, OfferLineValues[]>> {
  const byDeal = new Map<string, OfferLineValues[]>();
  if (dealIds.length === 0 || !crm.associated) return byDeal;
  const lineIdsOf = await crm.associated('deals', dealIds, 'line_items');
  const lineIds = [...new Set([...lineIdsOf.values()].flat())];
  if (lineIds.length === 0) return byDeal;
  const lineItems = new Map((await crm.findWhereIn('line_items', 'hs_object_id', lineIds, LINE_ITEM_PROPERTIES)).map((line) => [String(line.hs_object_id), line]));
  const productIds = [...new Set([...lineItems.values()].map((line) => crmText(line.hs_product_id)).filter(Boolean))];
  const products = new Map((productIds.length ? await crm.findWhereIn('products', 'hs_object_id', productIds, PRODUCT_PROPERTIES) : []).map((product) => [String(product.hs_object_id), product]));
  for (const dealId of dealIds) {
    const lines = (lineIdsOf.get(dealId) ?? []).flatMap((lineId) => {
      const line = lineItems.get(lineId);
      return line ? [lineItemValues(line, products.get(crmText(line.hs_product_id)))] : [];
    });
    if (lines.length > 0) byDeal.set(dealId, lines);
  }
  return byDeal;
}
