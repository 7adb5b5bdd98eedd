// A Dynamics opportunity's private offer from its products (issue #28 section 2): its opportunity
// products (opportunityproduct, by _opportunityid_value) as the offer's lines, each priced by its
// priceperunit and quantity, its product's catalogue keys (ccs_commerceproductid, ccs_dimensionkey, which
// the catalogue writes on `product`) read by a second query; and the opportunity columns a seller fills
// for the offer's own terms, its approval, a new expiry and a cancel request. An opportunity product's
// currency is its opportunity's (Dataverse keeps them equal), so a line names none. Wire facts:
// docs/crm-wire-behaviour.md, Dynamics "Products and line items".
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { OfferLineValues } from '../canonical/offer-lines.ts';
import type { OfferApprovalRule } from '../canonical/draft-offer-ask.ts';
import { crmText } from '../cosell-values.ts';
import { dynamicsGuid } from '../values.ts';

/** The opportunity columns of the offer (setup makes them: mappings/dynamics/schema.ts); optional, so an environment set up before them asks as it did. */
export const OPPORTUNITY_OFFER_COLUMNS = {
  durationMonths: 'ccs_offerdurationmonths',
  paymentSchedule: 'ccs_offerpaymentschedule',
  approvalStatus: 'ccs_offerapprovalstatus',
  approvedBy: 'ccs_offerapprovedby',
  approvedAt: 'ccs_offerapprovedat',
  newExpiry: 'ccs_offernewexpirydate',
  cancel: 'ccs_offercancelrequested',
} as const;

/** The option values of ccs_offerapprovalstatus (a choice: the Web API reads and writes the integer; the labels are for people). */
export const OFFER_APPROVAL_OPTION = { Pending: 100_000_000, Approved: 100_000_001, Rejected: 100_000_002 } as const;

/**
 * The connection's approval rule as the Web API reads the column: a choice column is read as its option
 * value, so the rule names that value ("100000001"); on the project's own ccs_offerapprovalstatus its
 * label (Approved, any case) names it too.
 */
export function dynamicsApprovalRule(rule: OfferApprovalRule | undefined): OfferApprovalRule | undefined {
  if (!rule || rule.field !== OPPORTUNITY_OFFER_COLUMNS.approvalStatus) return rule;
  const label = Object.keys(OFFER_APPROVAL_OPTION).find((name) => name.toLowerCase() === rule.approvedValue.trim().toLowerCase()) as keyof typeof OFFER_APPROVAL_OPTION | undefined;
  return label ? { ...rule, approvedValue: String(OFFER_APPROVAL_OPTION[label]) } : rule;
}

const LINE_COLUMNS = ['_opportunityid_value', '_productid_value', 'productdescription', 'quantity', 'priceperunit'];
/** The catalogue's keys on a product (crm/dynamics/catalogue-setup.ts and the catalogue mapping). */
const PRODUCT_KEYS = ['ccs_commerceproductid', 'ccs_dimensionkey'];

/** An opportunity product, with its catalogue product (none: a write-in product), as an offer line's neutral values. */
export function opportunityProductValues(line: CrmRecord, product: CrmRecord | undefined): OfferLineValues {
  return {
    product: product?.name ?? line.productdescription,
    productId: product?.ccs_commerceproductid,
    dimensionKey: product?.ccs_dimensionkey,
    quantity: line.quantity,
    unitPrice: line.priceperunit,
  };
}

/**
 * The opportunity products of each opportunity (by its `id` as read) as offer lines: one query of the
 * lines by their opportunities, one of their products (without the catalogue's columns where the
 * environment never set the catalogue up: every line is then refused by name).
 */
export async function opportunityOfferLines(crm: CrmConnector, opportunities: CrmRecord[]): Promise<Map<string, OfferLineValues[]>> {
  const byOpportunity = new Map<string, OfferLineValues[]>();
  const idOf = new Map(opportunities.map((opportunity) => [dynamicsGuid(String(opportunity.id)), String(opportunity.id)]));
  if (idOf.size === 0) return byOpportunity;
  const lines = await crm.findWhereIn('opportunityproduct', '_opportunityid_value', [...idOf.keys()], LINE_COLUMNS);
  const productGuids = [...new Set(lines.map((line) => crmText(line._productid_value)).filter(Boolean).map(dynamicsGuid))];
  let products = new Map<string, CrmRecord>();
  if (productGuids.length > 0) {
    const schema = typeof crm.describe === 'function' ? await crm.describe('product').catch(() => undefined) : undefined;
    const keyed = !schema || PRODUCT_KEYS.every((column) => schema.fields.has(column));
    products = new Map((await crm.findWhereIn('product', 'id', productGuids, ['name', ...(keyed ? PRODUCT_KEYS : [])])).map((product) => [dynamicsGuid(String(product.id)), product]));
  }
  // Dataverse answers in no promised order; none is needed (the offer's lines are sorted by dimension, offer-lines.ts).
  for (const line of lines) {
    const id = idOf.get(dynamicsGuid(crmText(line._opportunityid_value)));
    if (!id) continue;
    const product = crmText(line._productid_value) ? products.get(dynamicsGuid(crmText(line._productid_value))) : undefined;
    byOpportunity.set(id, [...(byOpportunity.get(id) ?? []), opportunityProductValues(line, product)]);
  }
  return byOpportunity;
}
