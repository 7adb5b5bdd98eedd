// Dynamics opportunities -> commerce (co-sell). An opportunity the connection's share rule shares (by
// default the Co-sell Share yes/no column ccs_cosellshare) asks for a referral with the partner named in
// ccs_cosellpartner; one with Private Offer Requested (ccs_privateofferrequested) and a Commerce Product Id
// asks for a private-offer draft. The buyer is the opportunity's account (parentaccountid) when that
// account came from the marketplace (its ccs_commercebuyerid); a draft's contacts are the commerce
// contacts linked to the opportunity by ccs_opportunitycontact rows. Both name the opportunity by its
// GUID, lowercased and without braces (crmCOpportunityId, contract §2.6). The answers go back onto the
// opportunity: ccs_commercereferralid / ccs_commerceofferid, ccs_cosellstatus, ccs_cosellstage, and the
// reasons of a refusal in ccs_cosellerrors (a draft's in ccs_coselldrafterrors), worded for the person who
// fixes them in Dynamics.
import type { Referral } from '../../commerce/models.ts';
import { referralShown } from '../../sync/referral-lifecycle.ts';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ShareRule } from '../../sync/connection-settings.ts';
import { dateOnly, fieldsReadByShareRule, fieldsReadBySubmitRule, isCrmTrue, isSharedUnder, marketplacePartnerByName, nonNegativeAmount, submitsNow } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';
import { dynamicsGuid } from '../values.ts';

/** The Co-sell Errors column is a Memo of this many characters (schema.ts). */
const ERRORS_LIMIT = 100_000;

/** The share rule of a Dynamics connection that names none: the Co-sell Share yes/no column. */
export const DYNAMICS_DEFAULT_SHARE_RULE: ShareRule = { by: 'checkbox', field: 'ccs_cosellshare' };

/** What asking needs besides the opportunity: its account's id and buyer, its linked commerce contacts. */
export type OpportunityRelations = { accountId?: string; buyerId?: string; contactIds: string[] };

export type DynamicsReferralRequest = {
  name: string;
  partner: string;
  buyerID: string;
  dealValue?: number;
  currency: string;
  expectedCloseDate?: string;
  description?: string;
  crmCOpportunityId: string;
  /** Present when the referral goes to the partner now (the connection's submit rule, A13). */
  status?: 'SUBMITTED';
};

export type DynamicsDraftOfferRequest = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  info?: { commitAmount: number; currency: string };
  contactIds?: string[];
  metaInfo: { crmCOpportunityId: string };
};

export type CosellAsk<Request> = { asks: false } | { asks: true; request: Request } | { asks: true; refused: string };

/** Columns the referral flow reads from each opportunity (beside those the share rule names). */
export const REFERRAL_FIELDS = ['name', '_parentaccountid_value', 'estimatedvalue', 'estimatedclosedate', 'stepname', 'ccs_cosellpartner', 'ccs_commercereferralid', 'ccs_cosellstatus', 'ccs_cosellstage', 'ccs_cosellerrors'];
/** Columns the draft flow reads from each opportunity. */
export const DRAFT_FIELDS = ['name', '_parentaccountid_value', 'estimatedvalue', 'estimatedclosedate', 'ccs_privateofferrequested', 'ccs_commerceproductid', 'ccs_commerceofferid'];
/** The draft's reasons have a column of their own; an environment set up before it had one uses ccs_cosellerrors (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'ccs_coselldrafterrors', shared: 'ccs_cosellerrors' }, ERRORS_LIMIT);

const NO_ACCOUNT = "buyerID: the opportunity has no Account; choose in its Account field an account synced from the marketplace (one with a Commerce Buyer Id), then save the opportunity again";
const NOT_LINKED = 'buyerID: the opportunity\'s Account is not linked to a marketplace buyer (its Commerce Buyer Id is empty); choose an account synced from the marketplace, then save the opportunity again';
const NO_PRODUCT = 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer';

const textOf = (value: unknown) => (value === null || value === undefined ? '' : String(value).trim());
/** The opportunity's GUID as the contract wants it (lowercase, no braces). */
const opportunityGuid = (opportunity: CrmRecord) => dynamicsGuid(String(opportunity.id));

/** Whether the connection's share rule shares this opportunity (a stage rule reads stepname). */
export function isOpportunityShared(opportunity: CrmRecord, rule: ShareRule): boolean {
  return isSharedUnder(opportunity, rule, 'stepname');
}

/** The columns a share rule reads. */
export function shareRuleFields(rule: ShareRule): string[] {
  return fieldsReadByShareRule(rule, 'stepname');
}

function buyerProblem(opportunity: CrmRecord, relations: OpportunityRelations): string | undefined {
  if (relations.buyerId?.trim()) return undefined;
  return textOf(opportunity._parentaccountid_value) || relations.accountId ? NOT_LINKED : NO_ACCOUNT;
}

export function opportunityToReferral(opportunity: CrmRecord, rule: ShareRule, relations: OpportunityRelations = { contactIds: [] }, submitRule?: ShareRule): CosellAsk<DynamicsReferralRequest> {
  if (!isOpportunityShared(opportunity, rule)) return { asks: false };
  const problems: string[] = [];
  const partnerName = textOf(opportunity.ccs_cosellpartner);
  const partner = marketplacePartnerByName(partnerName);
  if (!partner) problems.push(`partner: "${partnerName || '(empty)'}" is not a marketplace; enter one of Marketplace A to Marketplace F in Co-sell Partner`);
  const buyer = buyerProblem(opportunity, relations);
  if (buyer) problems.push(buyer);
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const dealValue = nonNegativeAmount(opportunity.estimatedvalue);
  const expectedCloseDate = dateOnly(opportunity.estimatedclosedate);
  return {
    asks: true,
    request: {
      name: textOf(opportunity.name) || opportunityGuid(opportunity),
      partner: partner!,
      buyerID: relations.buyerId!.trim(),
      ...(dealValue !== undefined && { dealValue }),
      currency: 'USD',
      ...(expectedCloseDate && { expectedCloseDate }),
      ...(typeof opportunity.description === 'string' && opportunity.description && { description: opportunity.description }),
      crmCOpportunityId: opportunityGuid(opportunity),
      ...(submitsNow(opportunity, submitRule, 'stepname') && { status: 'SUBMITTED' as const }),
    },
  };
}

export function opportunityToDraftOffer(opportunity: CrmRecord, relations: OpportunityRelations = { contactIds: [] }): CosellAsk<DynamicsDraftOfferRequest> {
  if (!isCrmTrue(opportunity.ccs_privateofferrequested)) return { asks: false };
  const problems: string[] = [];
  const productID = textOf(opportunity.ccs_commerceproductid);
  if (!productID) problems.push(NO_PRODUCT);
  const buyer = buyerProblem(opportunity, relations);
  if (buyer) problems.push(buyer);
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const commitAmount = nonNegativeAmount(opportunity.estimatedvalue);
  const close = dateOnly(opportunity.estimatedclosedate);
  return {
    asks: true,
    request: {
      name: textOf(opportunity.name) || opportunityGuid(opportunity),
      offerType: 'PRIVATE',
      productID,
      buyerID: relations.buyerId!.trim(),
      ...(close && { expireTime: `${close}T23:59:59.000Z` }),
      ...(commitAmount !== undefined && { info: { commitAmount, currency: 'USD' } }),
      ...(relations.contactIds.length > 0 && { contactIds: [...new Set(relations.contactIds)].sort() }),
      metaInfo: { crmCOpportunityId: opportunityGuid(opportunity) },
    },
  };
}

/**
 * For a page of opportunities, by their `id` as read: the buyer of each one's account
 * (`_parentaccountid_value` -> account.ccs_commercebuyerid) and, with `contacts`, the commerce ids of the
 * contacts its ccs_opportunitycontact rows link. A few calls a page; GUIDs are compared lowercased.
 */
export async function opportunityRelations(crm: CrmConnector, opportunities: CrmRecord[], options: { contacts: boolean } = { contacts: true }): Promise<Map<string, OpportunityRelations>> {
  const relations = new Map<string, OpportunityRelations>();
  const guidOf = new Map<string, string>();
  for (const opportunity of opportunities) {
    const account = textOf(opportunity._parentaccountid_value);
    relations.set(String(opportunity.id), { ...(account && { accountId: dynamicsGuid(account) }), contactIds: [] });
    guidOf.set(opportunityGuid(opportunity), String(opportunity.id));
  }
  if (opportunities.length === 0) return relations;

  const accountGuids = [...new Set([...relations.values()].flatMap((relation) => (relation.accountId ? [relation.accountId] : [])))];
  if (accountGuids.length > 0) {
    const accounts = await crm.findWhereIn('account', 'id', accountGuids, ['ccs_commercebuyerid']);
    const buyerOf = new Map(accounts.map((account) => [dynamicsGuid(String(account.id)), textOf(account.ccs_commercebuyerid)]));
    for (const relation of relations.values()) {
      const buyerId = relation.accountId ? buyerOf.get(relation.accountId) : undefined;
      if (buyerId) relation.buyerId = buyerId;
    }
  }

  if (!options.contacts) return relations;
  const links = await crm.findWhereIn('ccs_opportunitycontact', '_ccs_opportunityid_value', [...guidOf.keys()], ['_ccs_contactid_value']);
  const contactGuids = [...new Set(links.map((link) => textOf(link._ccs_contactid_value)).filter(Boolean).map(dynamicsGuid))];
  if (contactGuids.length === 0) return relations;
  const contacts = await crm.findWhereIn('contact', 'id', contactGuids, ['ccs_commercecontactid']);
  const commerceIdOf = new Map(contacts.map((contact) => [dynamicsGuid(String(contact.id)), textOf(contact.ccs_commercecontactid)]));
  for (const link of links) {
    const opportunityId = guidOf.get(dynamicsGuid(textOf(link._ccs_opportunityid_value)));
    const commerceId = commerceIdOf.get(dynamicsGuid(textOf(link._ccs_contactid_value)));
    // A contact made in Dynamics (no commerce id) is no commerce contact of the draft.
    if (!opportunityId || !commerceId) continue;
    relations.get(opportunityId)!.contactIds.push(commerceId);
  }
  return relations;
}

/** The Dynamics side of the opportunity-referral flow. */
export const opportunityReferralSide: CrmSide<DynamicsReferralRequest> = {
  object: 'opportunity',
  fields: (settings) => [...new Set([...REFERRAL_FIELDS, ...shareRuleFields(settings.cosell.share), ...fieldsReadBySubmitRule(settings.cosell.submit, 'stepname')])],
  // The opportunity's own Description, read where the environment shows it.
  optionalFields: ['description'],
  related: (crm, records) => opportunityRelations(crm, records, { contacts: false }),
  ask: (record, settings, related) => opportunityToReferral(record, settings.cosell.share, related as OpportunityRelations | undefined, settings.cosell.submit),
  madeField: 'ccs_commercereferralid',
  // A referral the partner rejected shows why (sync/referral-lifecycle.ts), whichever pass writes it.
  made: (referral) => ({ ccs_commercereferralid: referral.id, ccs_cosellstatus: referral.status ?? null, ccs_cosellstage: referral.stage ?? null, ccs_cosellerrors: referralShown(referral as Referral).rejection?.slice(0, ERRORS_LIMIT) ?? null }),
  refused: (message) => ({ ccs_cosellstatus: 'Not shared', ccs_cosellerrors: message.slice(0, ERRORS_LIMIT) }),
  refusedAfterMade: (message) => ({ ccs_cosellerrors: message.slice(0, ERRORS_LIMIT) }),
};

/** The Dynamics side of the opportunity-draft-offer flow. */
export const opportunityDraftOfferSide: CrmSide<DynamicsDraftOfferRequest> = {
  object: 'opportunity',
  fields: () => DRAFT_FIELDS,
  // Only environments set up since the column was added have it.
  optionalFields: ['ccs_coselldrafterrors'],
  // Only the opportunities asking for a draft need their contacts read.
  related: (crm, records) => opportunityRelations(crm, records.filter((record) => isCrmTrue(record.ccs_privateofferrequested)), { contacts: true }),
  ask: (record, _settings, related) => opportunityToDraftOffer(record, related as OpportunityRelations | undefined),
  madeField: 'ccs_commerceofferid',
  made: (offer) => ({ ccs_commerceofferid: offer.id, ...DRAFT_ERRORS.cleared }),
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
