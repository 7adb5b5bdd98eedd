// Opportunity -> private-offer draft (CRM to commerce). An Opportunity with Private Offer Requested and a
// product asks for one draft offer on its Account's buyer, priced from its Amount, due by its Close Date,
// with its contacts (those of its contact roles that came from the commerce side), carrying its Id; the offer id goes back as Commerce_Offer_Id__c (the Opportunity's
// external id), so when the offer later syncs to Salesforce it updates this same Opportunity.
// Issue #28: an Opportunity with products (OpportunityLineItem) asks for an offer of their marketplace
// product and dimensions instead, with a duration and payment schedule of its own fields; the draft is held
// until the connection's approval rule holds, and later changes, a new expiry and a cancel request are the
// offer's next steps (flows/offer-changes.ts). docs/cosell.md "Private offers from Opportunity products".
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { Ask, CrmSide, Made } from '../../flows/crm-to-commerce.ts';
import { extrasOf } from '../../flows/made-extras.ts';
import { draftOfferAsk, offerApproval, type DraftOfferRequest as CanonicalDraftOfferRequest } from '../canonical/draft-offer-ask.ts';
import type { OfferLineValues } from '../canonical/offer-lines.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { orgDefaultCurrency } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';
import { NOT_LINKED } from './opportunity-referral.ts';

/** The draft (A9), naming the Opportunity by metaInfo.crmAOpportunityId. */
export type DraftOfferRequest = CanonicalDraftOfferRequest<'crmAOpportunityId'>;

const FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Private_Offer_Requested__c', 'Commerce_Product_Id__c', 'Commerce_Offer_Id__c'];
/** The offer's own fields (issue #28), optional: an org set up before them asks as it did. */
export const OFFER_FIELDS = {
  durationMonths: 'Offer_Duration_Months__c',
  paymentSchedule: 'Offer_Payment_Schedule__c',
  newExpiry: 'Offer_New_Expiry_Date__c',
  cancel: 'Offer_Cancel_Requested__c',
  approvedAt: 'Offer_Approved_At__c',
} as const;
/** A line item's fields: its product's catalogue keys two relationships away (PricebookEntry.Product2). */
const LINE_FIELDS = ['OpportunityId', 'Quantity', 'UnitPrice', 'PricebookEntry.Product2.Name'];
const LINE_KEYS = ['PricebookEntry.Product2.Commerce_Product_Id__c', 'PricebookEntry.Product2.Commerce_Dimension_Key__c'];
/** The draft's reasons have a field of their own; an org set up before it had one uses Cosell_Errors__c (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'Cosell_Draft_Errors__c', shared: 'Cosell_Errors__c' }, 32_000);

/** A line item as an offer line's neutral values. */
function lineValues(line: CrmRecord): OfferLineValues {
  const product = ((line.PricebookEntry as CrmRecord | null | undefined)?.Product2 ?? {}) as CrmRecord;
  return { product: product.Name, productId: product.Commerce_Product_Id__c, dimensionKey: product.Commerce_Dimension_Key__c, quantity: line.Quantity, unitPrice: line.UnitPrice };
}

/** The Opportunity's fields as the draft's neutral values (mappings/canonical/draft-offer-ask.ts). */
export function opportunityToDraftOffer(opportunity: CrmRecord, contactIds: string[] = [], defaultCurrency?: string, lines: CrmRecord[] = [], settings?: ConnectionSettings): Ask<DraftOfferRequest> {
  return draftOfferAsk('crmAOpportunityId', {
    requested: opportunity.Private_Offer_Requested__c,
    crmId: String(opportunity.Id),
    name: opportunity.Name,
    productId: opportunity.Commerce_Product_Id__c,
    buyerId: (opportunity.Account as CrmRecord | null | undefined)?.Commerce_Buyer_Id__c,
    amount: opportunity.Amount,
    closeDate: opportunity.CloseDate,
    // The Amount is in the Opportunity's currency (a multi-currency org's CurrencyIsoCode), else in the org's default currency.
    currency: opportunity.CurrencyIsoCode,
    defaultCurrency,
    contactIds,
    lines: lines.map(lineValues),
    durationMonths: opportunity[OFFER_FIELDS.durationMonths],
    paymentSchedule: opportunity[OFFER_FIELDS.paymentSchedule],
    newExpiry: opportunity[OFFER_FIELDS.newExpiry],
    cancel: opportunity[OFFER_FIELDS.cancel],
    // Held until the connection's rule holds; without a rule, published at once.
    approval: offerApproval(settings?.cosell.offerApproval, (field) => opportunity[field]),
  }, NOT_LINKED);
}

/** What a draft needs besides its Opportunity. */
type DraftRelations = { contactIds: string[]; defaultCurrency?: string; lines: CrmRecord[] };

/**
 * The line items of each Opportunity, with their products' catalogue keys where Product2 has them (an org
 * whose catalogue was never set up has line items of its own products: each is refused by name).
 */
async function linesByOpportunity(crm: CrmConnector, opportunityIds: string[]): Promise<Map<string, CrmRecord[]>> {
  const byOpportunity = new Map<string, CrmRecord[]>();
  const product = typeof crm.describe === 'function' ? await crm.describe('Product2').catch(() => undefined) : undefined;
  const keyed = !product || LINE_KEYS.every((path) => product.fields.has(path.split('.').at(-1)!));
  const lines = await crm.findWhereIn('OpportunityLineItem', 'OpportunityId', opportunityIds, [...LINE_FIELDS, ...(keyed ? LINE_KEYS : [])]);
  for (const line of lines) byOpportunity.set(String(line.OpportunityId), [...(byOpportunity.get(String(line.OpportunityId)) ?? []), line]);
  return byOpportunity;
}

/** The commerce contact ids of each Opportunity: its contact roles' Contacts that came from the commerce side. */
async function contactsByOpportunity(crm: CrmConnector, opportunityIds: string[]): Promise<Map<string, string[]>> {
  const byOpportunity = new Map<string, string[]>();
  const roles = await crm.findWhereIn('OpportunityContactRole', 'OpportunityId', opportunityIds, ['ContactId']);
  const contactIds = [...new Set(roles.map((role) => String(role.ContactId)))];
  const commerceIdOf = new Map((contactIds.length ? await crm.findWhereIn('Contact', 'Id', contactIds, ['Commerce_Contact_Id__c']) : []).map((contact) => [String(contact.Id), contact.Commerce_Contact_Id__c as string | null]));
  for (const role of roles) {
    const commerceId = commerceIdOf.get(String(role.ContactId));
    if (!commerceId) continue;
    const list = byOpportunity.get(String(role.OpportunityId)) ?? [];
    list.push(commerceId);
    byOpportunity.set(String(role.OpportunityId), list);
  }
  return byOpportunity;
}

/** The Salesforce side of the opportunity-draft-offer flow. */
export const opportunityDraftOfferSide: CrmSide<DraftOfferRequest> = {
  object: 'Opportunity',
  // The approval rule's fields are the connection's own: an org without them is told before anything is written.
  fields: (settings) => {
    const rule = settings?.cosell?.offerApproval;
    return [...FIELDS, ...(rule ? [rule.field, ...(rule.approvedByField ? [rule.approvedByField] : [])] : [])];
  },
  // Only multi-currency orgs have CurrencyIsoCode; only orgs set up since each field was added have Cosell_Draft_Errors__c and the offer's fields.
  optionalFields: ['CurrencyIsoCode', 'Cosell_Draft_Errors__c', ...Object.values(OFFER_FIELDS)],
  // What asking needs besides the Opportunity: its contacts (its contact roles' Contacts that came from
  // the commerce side) and the org's default currency, for one without a CurrencyIsoCode (read once per
  // connector: see the referral side).
  async related(crm, records) {
    const asking = records.filter((record) => record.Private_Offer_Requested__c === true);
    const byOpportunity = new Map<string, DraftRelations>();
    if (asking.length === 0) return byOpportunity;
    const defaultCurrency = await orgDefaultCurrency(crm, asking, (record) => record.CurrencyIsoCode);
    const contactsOf = await contactsByOpportunity(crm, asking.map((record) => String(record.Id)));
    const linesOf = await linesByOpportunity(crm, asking.map((record) => String(record.Id)));
    for (const record of asking) byOpportunity.set(String(record.Id), { contactIds: contactsOf.get(String(record.Id)) ?? [], defaultCurrency, lines: linesOf.get(String(record.Id)) ?? [] });
    return byOpportunity;
  },
  ask: (record, settings, related) => {
    // A bare list is the contacts alone (what `related` handed before it carried the currency too).
    const relations: Partial<DraftRelations> | undefined = Array.isArray(related) ? { contactIds: related as string[] } : (related as DraftRelations | undefined);
    return opportunityToDraftOffer(record, relations?.contactIds, relations?.defaultCurrency, relations?.lines, settings);
  },
  madeField: 'Commerce_Offer_Id__c',
  // When the step published the offer after its approval, the Opportunity shows when (who: the rule's approvedByField, set in the org).
  made: (offer) => ({ Commerce_Offer_Id__c: offer.id, ...DRAFT_ERRORS.cleared, ...(publishedAt(offer) && { [OFFER_FIELDS.approvedAt]: publishedAt(offer) }) }),
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};

/** When a step published the offer (its audit says so), as the Opportunity shows it: the offer's own stamp of the publication. */
function publishedAt(made: Made): string | undefined {
  const { audit } = extrasOf(made);
  if (!audit?.some((entry) => entry.action === 'offer-published')) return undefined;
  const stamp = (made as { lastUpdateTime?: unknown }).lastUpdateTime;
  return typeof stamp === 'string' ? stamp : undefined;
}
