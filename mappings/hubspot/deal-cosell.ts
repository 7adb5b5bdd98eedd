// HubSpot deals -> commerce (co-sell): a deal with "Co-sell Share" asks for a referral with its partner,
// a deal with "Private Offer Requested" asks for a private-offer draft. Pure decisions on the deal and
// what it is associated to (its company's buyer, its contacts' commerce ids), read for a page by
// `dealRelations`; the answers go back onto the deal in the co-sell properties.
import type { Referral } from '../../commerce/models.ts';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { referralShown } from '../../sync/referral-lifecycle.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ShareRule } from '../../sync/connection-settings.ts';
import { dateOnly, fieldsReadByShareRule, fieldsReadBySubmitRule, isCrmTrue, isSharedUnder, marketplacePartnerByName, nonNegativeAmount, submitsNow } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';

/** HubSpot text properties hold 65,536 characters. */
const TEXT_LIMIT = 65_536;

export type DealRelations = { buyerId?: string; contactIds: string[] };

export type HubSpotReferralRequest = {
  name: string;
  partner: string;
  buyerID: string;
  dealValue?: number;
  currency: string;
  expectedCloseDate?: string;
  description?: string;
  crmBDealId: string;
  /** Present when the referral goes to the partner now (the connection's submit rule, A13). */
  status?: 'SUBMITTED';
};

export type HubSpotDraftOfferRequest = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  info?: { commitAmount: number; currency: string };
  contactIds?: string[];
  metaInfo: { crmBDealId: string };
};

const DEAL_FIELDS = ['dealname', 'amount', 'closedate', 'dealstage', 'pipeline', 'cosell_share', 'cosell_partner', 'commerce_referral_id', 'cosell_status', 'cosell_stage', 'cosell_errors'];
const DRAFT_FIELDS = ['dealname', 'amount', 'closedate', 'private_offer_requested', 'commerce_product_id', 'commerce_offer_id'];
/** The draft's reasons have a property of their own; an account set up before it had one uses cosell_errors (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'cosell_draft_errors', shared: 'cosell_errors' }, TEXT_LIMIT);
const NOT_LINKED = 'buyerID: the deal is not associated to a company synced from the marketplace (it has a Commerce Buyer Id); associate one, then save the deal again';
/** Whether the connection's share rule shares this deal (a stage rule reads dealstage). */
export function isDealShared(deal: CrmRecord, rule: ShareRule): boolean {
  return isSharedUnder(deal, rule, 'dealstage');
}

export function dealToReferral(deal: CrmRecord, rule: ShareRule, relations: DealRelations = { contactIds: [] }, submitRule?: ShareRule): { asks: false } | { asks: true; request: HubSpotReferralRequest } | { asks: true; refused: string } {
  if (!isDealShared(deal, rule)) return { asks: false };
  const problems: string[] = [];
  const partnerName = String(deal.cosell_partner ?? '').trim();
  const partner = marketplacePartnerByName(partnerName);
  if (!partner) problems.push(`partner: "${partnerName || '(empty)'}" is not a marketplace; choose Marketplace A to Marketplace F in Co-sell Partner`);
  const buyerID = relations.buyerId?.trim();
  if (!buyerID) problems.push(NOT_LINKED);
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const dealValue = nonNegativeAmount(deal.amount);
  const expectedCloseDate = dateOnly(deal.closedate);
  return {
    asks: true,
    request: {
      name: String(deal.dealname || deal.hs_object_id),
      partner: partner!,
      buyerID: buyerID!,
      ...(dealValue !== undefined && { dealValue }),
      currency: 'USD',
      ...(expectedCloseDate && { expectedCloseDate }),
      ...(typeof deal.description === 'string' && deal.description && { description: deal.description }),
      crmBDealId: String(deal.hs_object_id),
      ...(submitsNow(deal, submitRule, 'dealstage') && { status: 'SUBMITTED' as const }),
    },
  };
}

export function dealToDraftOffer(deal: CrmRecord, relations: DealRelations = { contactIds: [] }): { asks: false } | { asks: true; request: HubSpotDraftOfferRequest } | { asks: true; refused: string } {
  if (!isCrmTrue(deal.private_offer_requested)) return { asks: false };
  const problems: string[] = [];
  const productID = String(deal.commerce_product_id ?? '').trim();
  if (!productID) problems.push('productID: no marketplace product is named; fill Commerce Product Id with the product to offer');
  const buyerID = relations.buyerId?.trim();
  if (!buyerID) problems.push(NOT_LINKED);
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const commitAmount = nonNegativeAmount(deal.amount);
  const close = dateOnly(deal.closedate);
  return {
    asks: true,
    request: {
      name: String(deal.dealname || deal.hs_object_id),
      offerType: 'PRIVATE',
      productID,
      buyerID: buyerID!,
      ...(close && { expireTime: `${close}T23:59:59.000Z` }),
      ...(commitAmount !== undefined && { info: { commitAmount, currency: 'USD' } }),
      ...(relations.contactIds.length > 0 && { contactIds: [...new Set(relations.contactIds)].sort() }),
      metaInfo: { crmBDealId: String(deal.hs_object_id) },
    },
  };
}

/** Each deal's company's buyer and its contacts' commerce ids, for a page of deals (a few calls a page). */
export async function dealRelations(crm: CrmConnector, deals: CrmRecord[]): Promise<Map<string, DealRelations>> {
  const ids = deals.map((deal) => String(deal.hs_object_id));
  const relations = new Map<string, DealRelations>(ids.map((id) => [id, { contactIds: [] }]));
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
    relations.set(id, { buyerId, contactIds: contacts });
  }
  return relations;
}

export const dealReferralSide: CrmSide<HubSpotReferralRequest> = {
  object: 'deals',
  fields: (settings) => [...new Set([...DEAL_FIELDS, ...fieldsReadByShareRule(settings.cosell.share, 'dealstage'), ...fieldsReadBySubmitRule(settings.cosell.submit, 'dealstage')])],
  // HubSpot's own deal description; read where the account shows it.
  optionalFields: ['description'],
  related: dealRelations,
  ask: (record, settings, related) => dealToReferral(record, settings.cosell.share, related as DealRelations | undefined, settings.cosell.submit),
  madeField: 'commerce_referral_id',
  // A referral the partner rejected shows why (sync/referral-lifecycle.ts), whichever pass writes it.
  made: (referral) => ({ commerce_referral_id: referral.id, cosell_status: referral.status ?? null, cosell_stage: referral.stage ?? null, cosell_errors: referralShown(referral as Referral).rejection?.slice(0, TEXT_LIMIT) ?? null }),
  refused: (message) => ({ cosell_status: 'Not shared', cosell_errors: message.slice(0, TEXT_LIMIT) }),
  refusedAfterMade: (message) => ({ cosell_errors: message.slice(0, TEXT_LIMIT) }),
};

export const dealDraftOfferSide: CrmSide<HubSpotDraftOfferRequest> = {
  object: 'deals',
  fields: () => DRAFT_FIELDS,
  // Only accounts set up since the property was added have it.
  optionalFields: ['cosell_draft_errors'],
  related: dealRelations,
  ask: (record, _settings, related) => dealToDraftOffer(record, related as DealRelations | undefined),
  madeField: 'commerce_offer_id',
  made: (offer) => ({ commerce_offer_id: offer.id, ...DRAFT_ERRORS.cleared }),
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
