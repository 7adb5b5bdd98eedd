// HubSpot deals -> commerce (co-sell): a deal with "Co-sell Share" asks for a referral with its partner,
// a deal with "Private Offer Requested" asks for a private-offer draft. Pure decisions on the deal and
// what it is associated to (its company's buyer, its contacts' commerce ids), read for a page by
// `dealRelations`; the answers go back onto the deal in the co-sell properties.
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { Ask, CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ConnectionSettings, ShareRule } from '../../sync/connection-settings.ts';
import { draftOfferAsk, offerApproval, type DraftOfferRequest } from '../canonical/draft-offer-ask.ts';
import type { OfferLineValues } from '../canonical/offer-lines.ts';
import { offerPublishedAt } from '../canonical/offer-published.ts';
import { referralAsk, type ReferralRequest } from '../canonical/referral-ask.ts';
import { referralWriteBack } from '../canonical/referral-write-back.ts';
import { fieldsReadByShareRule, fieldsReadBySubmitRule, isSharedUnder, orgDefaultCurrency, shareSignals } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';
import { DEAL_OFFER_PROPERTIES, dealOfferLines } from './deal-offer-lines.ts';

/** HubSpot text properties hold 65,536 characters. */
const TEXT_LIMIT = 65_536;

/**
 * `defaultCurrency`: the account's company currency, for a deal without deal_currency_code (read once per
 * connector); `lines`: a draft's line items (issue #28), read only for deals asking for a private offer.
 */
export type DealRelations = { buyerId?: string; contactIds: string[]; defaultCurrency?: string; lines?: OfferLineValues[] };

/** The referral create's request (A6), naming the deal by crmBDealId. */
export type HubSpotReferralRequest = ReferralRequest<'crmBDealId'>;
/** The draft (A9), naming the deal by metaInfo.crmBDealId. */
export type HubSpotDraftOfferRequest = DraftOfferRequest<'crmBDealId'>;

const DEAL_FIELDS = ['dealname', 'amount', 'closedate', 'dealstage', 'pipeline', 'cosell_share', 'cosell_partner', 'commerce_referral_id', 'cosell_status', 'cosell_stage', 'cosell_errors'];
const DRAFT_FIELDS = ['dealname', 'amount', 'closedate', 'private_offer_requested', 'commerce_product_id', 'commerce_offer_id'];
/** The draft's reasons have a property of their own; an account set up before it had one uses cosell_errors (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'cosell_draft_errors', shared: 'cosell_errors' }, TEXT_LIMIT);
const NOT_LINKED = 'buyerID: the deal is not associated to a company synced from the marketplace (it has a Commerce Buyer Id); associate one, then save the deal again';
/**
 * The deal's own currency (HubSpot's deal_currency_code, one of the account's currencies; empty on a deal
 * made before multi-currency, which is then in the company currency): docs/crm-wire-behaviour.md.
 */
const CURRENCY = 'deal_currency_code';

/** Whether the connection's share rule shares this deal (a stage rule reads dealstage). */
export function isDealShared(deal: CrmRecord, rule: ShareRule): boolean {
  return isSharedUnder(deal, rule, 'dealstage');
}

/** The deal's properties and associations as the referral's neutral values (mappings/canonical/referral-ask.ts). */
export function dealToReferral(deal: CrmRecord, rule: ShareRule, relations: DealRelations = { contactIds: [] }, submitRule?: ShareRule): Ask<HubSpotReferralRequest> {
  return referralAsk('crmBDealId', {
    ...shareSignals(deal, { share: rule, submit: submitRule }, 'dealstage'),
    crmId: String(deal.hs_object_id),
    name: deal.dealname,
    partnerName: deal.cosell_partner,
    buyerId: relations.buyerId,
    amount: deal.amount,
    closeDate: deal.closedate,
    description: deal.description,
    currency: deal[CURRENCY],
    defaultCurrency: relations.defaultCurrency,
  }, { partnerFix: 'choose Marketplace A to Marketplace F in Co-sell Partner', noBuyer: NOT_LINKED });
}

/**
 * The deal's properties and associations as the draft's neutral values (mappings/canonical/draft-offer-ask.ts).
 * With its line items (issue #28) the offer is theirs; with the connection's settings it is held until the
 * approval rule (cosell.offerApproval, on deal properties) holds.
 */
export function dealToDraftOffer(deal: CrmRecord, relations: DealRelations = { contactIds: [] }, settings?: ConnectionSettings): Ask<HubSpotDraftOfferRequest> {
  return draftOfferAsk('crmBDealId', {
    requested: deal.private_offer_requested,
    crmId: String(deal.hs_object_id),
    name: deal.dealname,
    productId: deal.commerce_product_id,
    buyerId: relations.buyerId,
    amount: deal.amount,
    closeDate: deal.closedate,
    currency: deal[CURRENCY],
    defaultCurrency: relations.defaultCurrency,
    contactIds: relations.contactIds,
    lines: relations.lines ?? [],
    durationMonths: deal[DEAL_OFFER_PROPERTIES.durationMonths],
    paymentSchedule: deal[DEAL_OFFER_PROPERTIES.paymentSchedule],
    newExpiry: deal[DEAL_OFFER_PROPERTIES.newExpiry],
    cancel: deal[DEAL_OFFER_PROPERTIES.cancel],
    // A connection with an approval rule holds the draft until the rule holds; without one it is sent at once, as before.
    ...(settings?.cosell?.offerApproval && { approval: offerApproval(settings.cosell.offerApproval, (property) => deal[property]) }),
  }, NOT_LINKED);
}

/**
 * Each deal's company's buyer and its contacts' commerce ids, for a page of deals (a few calls a page),
 * and the account's company currency where a deal has no deal_currency_code. The currency rides here
 * because `related` is the hook the flow already calls once a page with the connector, which reads it
 * once for its life: `ask` gets it with no change to its callers.
 */
export async function dealRelations(crm: CrmConnector, deals: CrmRecord[]): Promise<Map<string, DealRelations>> {
  const ids = deals.map((deal) => String(deal.hs_object_id));
  const defaultCurrency = await orgDefaultCurrency(crm, deals, (deal) => deal[CURRENCY]);
  const relations = new Map<string, DealRelations>(ids.map((id) => [id, { contactIds: [], ...(defaultCurrency && { defaultCurrency }) }]));
  if (ids.length === 0 || !crm.associated) return relations;
  const companiesOf = await crm.associated('deals', ids, 'companies');
  const contactsOf = await crm.associated('deals', ids, 'contacts');
  const companyIds = [...new Set([...companiesOf.values()].flat())];
  const contactIds = [...new Set([...contactsOf.values()].flat())];
  const buyerOf = new Map((await crm.findWhereIn('companies', 'hs_object_id', companyIds, ['commerce_buyer_id'])).map((company) => [String(company.hs_object_id), company.commerce_buyer_id as string | null]));
  const commerceContactOf = new Map((await crm.findWhereIn('contacts', 'hs_object_id', contactIds, ['commerce_contact_id'])).map((contact) => [String(contact.hs_object_id), contact.commerce_contact_id as string | null]));
  for (const id of ids) {
    // The first associated company that came from the marketplace is the deal's buyer.
    const buyerId = (companiesOf.get(id) ?? []).map((company) => buyerOf.get(company)).find(Boolean) ?? undefined;
    const contacts = (contactsOf.get(id) ?? []).map((contact) => commerceContactOf.get(contact)).filter((value): value is string => Boolean(value));
    relations.set(id, { buyerId, contactIds: contacts, ...(defaultCurrency && { defaultCurrency }) });
  }
  return relations;
}

export const dealReferralSide: CrmSide<HubSpotReferralRequest> = {
  object: 'deals',
  fields: (settings) => [...new Set([...DEAL_FIELDS, ...fieldsReadByShareRule(settings.cosell.share, 'dealstage'), ...fieldsReadBySubmitRule(settings.cosell.submit, 'dealstage')])],
  // HubSpot's own deal description and the deal's currency; read where the account shows them.
  optionalFields: ['description', CURRENCY, 'cosell_review_ends'],
  related: dealRelations,
  ask: (record, settings, related) => dealToReferral(record, settings.cosell.share, related as DealRelations | undefined, settings.cosell.submit),
  madeField: 'commerce_referral_id',
  ...referralWriteBack({ id: 'commerce_referral_id', status: 'cosell_status', stage: 'cosell_stage', errors: 'cosell_errors', reviewEnds: 'cosell_review_ends' }, TEXT_LIMIT),
};

/** The draft's relations: the deal's company, contacts and currency, and its line items. */
async function draftRelations(crm: CrmConnector, deals: CrmRecord[]): Promise<Map<string, DealRelations>> {
  const relations = await dealRelations(crm, deals);
  const linesOf = await dealOfferLines(crm, [...relations.keys()]);
  for (const [id, lines] of linesOf) relations.get(id)!.lines = lines;
  return relations;
}

export const dealDraftOfferSide: CrmSide<HubSpotDraftOfferRequest> = {
  object: 'deals',
  // The approval rule's properties are the connection's own: an account without them is told before anything is written.
  fields: (settings) => {
    const rule = settings?.cosell?.offerApproval;
    return [...new Set([...DRAFT_FIELDS, ...(rule ? [rule.field, ...(rule.approvedByField ? [rule.approvedByField] : [])] : [])])];
  },
  // Only accounts set up since each property was added have cosell_draft_errors and the offer's properties; the currency is read where the account shows it.
  optionalFields: ['cosell_draft_errors', CURRENCY, ...Object.values(DEAL_OFFER_PROPERTIES)],
  related: draftRelations,
  ask: (record, settings, related) => dealToDraftOffer(record, related as DealRelations | undefined, settings),
  madeField: 'commerce_offer_id',
  // When the step published the offer after its approval, the deal shows when (who: the rule's approvedByField, set in the account).
  made: (offer) => {
    const publishedAt = offerPublishedAt(offer);
    return { commerce_offer_id: offer.id, ...DRAFT_ERRORS.cleared, ...(publishedAt && { [DEAL_OFFER_PROPERTIES.approvedAt]: publishedAt }) };
  },
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
