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
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { Ask, CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ConnectionSettings, ShareRule } from '../../sync/connection-settings.ts';
import { draftOfferAsk, offerApproval, type DraftOfferRequest } from '../canonical/draft-offer-ask.ts';
import type { OfferLineValues } from '../canonical/offer-lines.ts';
import { offerPublishedAt } from '../canonical/offer-published.ts';
import { referralAsk, type ReferralRequest } from '../canonical/referral-ask.ts';
import { referralWriteBack } from '../canonical/referral-write-back.ts';
import { crmText, fieldsReadByShareRule, fieldsReadBySubmitRule, isCrmTrue, isSharedUnder, orgDefaultCurrency, shareSignals } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';
import { dynamicsGuid } from '../values.ts';
import { dynamicsApprovalRule, OPPORTUNITY_OFFER_COLUMNS, opportunityOfferLines } from './opportunity-offer-lines.ts';

/** The Co-sell Errors column is a Memo of this many characters (schema.ts). */
const ERRORS_LIMIT = 100_000;

/** The share rule of a Dynamics connection that names none: the Co-sell Share yes/no column. */
export const DYNAMICS_DEFAULT_SHARE_RULE: ShareRule = { by: 'checkbox', field: 'ccs_cosellshare' };

/**
 * What asking needs besides the opportunity: its account's id and buyer, its currency's ISO code, its
 * linked commerce contacts, and the organization's base currency for one without a transaction currency.
 */
export type OpportunityRelations = { accountId?: string; buyerId?: string; currency?: string; defaultCurrency?: string; contactIds: string[]; lines?: OfferLineValues[] };

/** The referral create's request (A6), naming the opportunity by crmCOpportunityId. */
export type DynamicsReferralRequest = ReferralRequest<'crmCOpportunityId'>;
/** The draft (A9), naming the opportunity by metaInfo.crmCOpportunityId. */
export type DynamicsDraftOfferRequest = DraftOfferRequest<'crmCOpportunityId'>;


/**
 * The opportunity's transaction currency, a lookup to transactioncurrency (read back as its GUID); its ISO
 * code is that row's isocurrencycode (docs/crm-wire-behaviour.md). Read where the environment has it.
 */
const CURRENCY = '_transactioncurrencyid_value';
/** Columns the referral flow reads from each opportunity (beside those the share rule names). */
export const REFERRAL_FIELDS = ['name', '_parentaccountid_value', 'estimatedvalue', 'estimatedclosedate', 'stepname', 'ccs_cosellpartner', 'ccs_commercereferralid', 'ccs_cosellstatus', 'ccs_cosellstage', 'ccs_cosellerrors'];
/** Columns the draft flow reads from each opportunity. */
export const DRAFT_FIELDS = ['name', '_parentaccountid_value', 'estimatedvalue', 'estimatedclosedate', 'ccs_privateofferrequested', 'ccs_commerceproductid', 'ccs_commerceofferid'];
/** The draft's reasons have a column of their own; an environment set up before it had one uses ccs_cosellerrors (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'ccs_coselldrafterrors', shared: 'ccs_cosellerrors' }, ERRORS_LIMIT);

const NO_ACCOUNT = "buyerID: the opportunity has no Account; choose in its Account field an account synced from the marketplace (one with a Commerce Buyer Id), then save the opportunity again";
const NOT_LINKED = 'buyerID: the opportunity\'s Account is not linked to a marketplace buyer (its Commerce Buyer Id is empty); choose an account synced from the marketplace, then save the opportunity again';

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

/** Dynamics' words for a missing buyer: no Account at all, or one that did not come from the marketplace. */
function noBuyer(opportunity: CrmRecord, relations: OpportunityRelations): string {
  return crmText(opportunity._parentaccountid_value) || relations.accountId ? NOT_LINKED : NO_ACCOUNT;
}

/** The opportunity's columns and relations as the referral's neutral values (mappings/canonical/referral-ask.ts). */
export function opportunityToReferral(opportunity: CrmRecord, rule: ShareRule, relations: OpportunityRelations = { contactIds: [] }, submitRule?: ShareRule): Ask<DynamicsReferralRequest> {
  return referralAsk('crmCOpportunityId', {
    ...shareSignals(opportunity, { share: rule, submit: submitRule }, 'stepname'),
    crmId: opportunityGuid(opportunity),
    name: opportunity.name,
    partnerName: opportunity.ccs_cosellpartner,
    buyerId: relations.buyerId,
    amount: opportunity.estimatedvalue,
    closeDate: opportunity.estimatedclosedate,
    description: opportunity.description,
    currency: relations.currency,
    defaultCurrency: relations.defaultCurrency,
  }, { partnerFix: 'enter one of Marketplace A to Marketplace F in Co-sell Partner', noBuyer: noBuyer(opportunity, relations) });
}

/**
 * The opportunity's columns and relations as the draft's neutral values (mappings/canonical/draft-offer-ask.ts).
 * With its opportunity products (issue #28) the offer is theirs; with the connection's settings it is held
 * until the approval rule (cosell.offerApproval, on opportunity columns) holds.
 */
export function opportunityToDraftOffer(opportunity: CrmRecord, relations: OpportunityRelations = { contactIds: [] }, settings?: ConnectionSettings): Ask<DynamicsDraftOfferRequest> {
  return draftOfferAsk('crmCOpportunityId', {
    requested: opportunity.ccs_privateofferrequested,
    crmId: opportunityGuid(opportunity),
    name: opportunity.name,
    productId: opportunity.ccs_commerceproductid,
    buyerId: relations.buyerId,
    amount: opportunity.estimatedvalue,
    closeDate: opportunity.estimatedclosedate,
    currency: relations.currency,
    defaultCurrency: relations.defaultCurrency,
    contactIds: relations.contactIds,
    lines: relations.lines ?? [],
    durationMonths: opportunity[OPPORTUNITY_OFFER_COLUMNS.durationMonths],
    paymentSchedule: opportunity[OPPORTUNITY_OFFER_COLUMNS.paymentSchedule],
    newExpiry: opportunity[OPPORTUNITY_OFFER_COLUMNS.newExpiry],
    cancel: opportunity[OPPORTUNITY_OFFER_COLUMNS.cancel],
    // A connection with an approval rule holds the draft until the rule holds; without one it is sent at once, as before.
    ...(settings?.cosell?.offerApproval && { approval: offerApproval(dynamicsApprovalRule(settings.cosell.offerApproval), (column) => opportunity[column]) }),
  }, noBuyer(opportunity, relations));
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
    const account = crmText(opportunity._parentaccountid_value);
    relations.set(String(opportunity.id), { ...(account && { accountId: dynamicsGuid(account) }), contactIds: [] });
    guidOf.set(opportunityGuid(opportunity), String(opportunity.id));
  }
  if (opportunities.length === 0) return relations;

  const accountGuids = [...new Set([...relations.values()].flatMap((relation) => (relation.accountId ? [relation.accountId] : [])))];
  if (accountGuids.length > 0) {
    const accounts = await crm.findWhereIn('account', 'id', accountGuids, ['ccs_commercebuyerid']);
    const buyerOf = new Map(accounts.map((account) => [dynamicsGuid(String(account.id)), crmText(account.ccs_commercebuyerid)]));
    for (const relation of relations.values()) {
      const buyerId = relation.accountId ? buyerOf.get(relation.accountId) : undefined;
      if (buyerId) relation.buyerId = buyerId;
    }
  }

  await readCurrencies(crm, opportunities, relations);
  // The base currency rides in the relations `related` already hands `ask` once a page; the connector
  // reads it once for its life, and only when an opportunity here names no transaction currency.
  const opportunityCurrencies = opportunities.map((opportunity) => relations.get(String(opportunity.id))!);
  const defaultCurrency = await orgDefaultCurrency(crm, opportunityCurrencies, (relation) => relation.currency);
  if (defaultCurrency) for (const relation of opportunityCurrencies) relation.defaultCurrency = defaultCurrency;

  if (!options.contacts) return relations;
  const links = await crm.findWhereIn('ccs_opportunitycontact', '_ccs_opportunityid_value', [...guidOf.keys()], ['_ccs_contactid_value']);
  const contactGuids = [...new Set(links.map((link) => crmText(link._ccs_contactid_value)).filter(Boolean).map(dynamicsGuid))];
  if (contactGuids.length === 0) return relations;
  const contacts = await crm.findWhereIn('contact', 'id', contactGuids, ['ccs_commercecontactid']);
  const commerceIdOf = new Map(contacts.map((contact) => [dynamicsGuid(String(contact.id)), crmText(contact.ccs_commercecontactid)]));
  for (const link of links) {
    const opportunityId = guidOf.get(dynamicsGuid(crmText(link._ccs_opportunityid_value)));
    const commerceId = commerceIdOf.get(dynamicsGuid(crmText(link._ccs_contactid_value)));
    // A contact made in Dynamics (no commerce id) is no commerce contact of the draft.
    if (!opportunityId || !commerceId) continue;
    relations.get(opportunityId)!.contactIds.push(commerceId);
  }
  return relations;
}

/**
 * Each opportunity's transaction currency as its ISO code: one read of the transactioncurrency rows its
 * `_transactioncurrencyid_value` GUIDs name, none when no opportunity names one (the column is optional).
 */
async function readCurrencies(crm: CrmConnector, opportunities: CrmRecord[], relations: Map<string, OpportunityRelations>): Promise<void> {
  const currencyOf = new Map(opportunities.flatMap((opportunity) => (crmText(opportunity[CURRENCY]) ? [[String(opportunity.id), dynamicsGuid(crmText(opportunity[CURRENCY]))] as const] : [])));
  if (currencyOf.size === 0) return;
  const currencies = await crm.findWhereIn('transactioncurrency', 'id', [...new Set(currencyOf.values())], ['isocurrencycode']);
  const codeOf = new Map(currencies.map((currency) => [dynamicsGuid(String(currency.id)), crmText(currency.isocurrencycode)]));
  for (const [id, guid] of currencyOf) {
    const code = codeOf.get(guid);
    if (code) relations.get(id)!.currency = code;
  }
}

/** The Dynamics side of the opportunity-referral flow. */
export const opportunityReferralSide: CrmSide<DynamicsReferralRequest> = {
  object: 'opportunity',
  fields: (settings) => [...new Set([...REFERRAL_FIELDS, ...shareRuleFields(settings.cosell.share), ...fieldsReadBySubmitRule(settings.cosell.submit, 'stepname')])],
  // The opportunity's own Description and its transaction currency, read where the environment shows them.
  optionalFields: ['description', CURRENCY, 'ccs_cosellreviewends'],
  related: (crm, records) => opportunityRelations(crm, records, { contacts: false }),
  ask: (record, settings, related) => opportunityToReferral(record, settings.cosell.share, related as OpportunityRelations | undefined, settings.cosell.submit),
  madeField: 'ccs_commercereferralid',
  ...referralWriteBack({ id: 'ccs_commercereferralid', status: 'ccs_cosellstatus', stage: 'ccs_cosellstage', errors: 'ccs_cosellerrors', reviewEnds: 'ccs_cosellreviewends' }, ERRORS_LIMIT),
};

/** The draft's relations: the opportunity's account, contacts and currency, and its opportunity products. */
async function draftRelations(crm: CrmConnector, records: CrmRecord[]): Promise<Map<string, OpportunityRelations>> {
  // Only the opportunities asking for a draft need their contacts and products read.
  const asking = records.filter((record) => isCrmTrue(record.ccs_privateofferrequested));
  const relations = await opportunityRelations(crm, asking, { contacts: true });
  for (const [id, lines] of await opportunityOfferLines(crm, asking)) relations.get(id)!.lines = lines;
  return relations;
}

/** The Dynamics side of the opportunity-draft-offer flow. */
export const opportunityDraftOfferSide: CrmSide<DynamicsDraftOfferRequest> = {
  object: 'opportunity',
  // The approval rule's columns are the connection's own: an environment without them is told before anything is written.
  fields: (settings) => {
    const rule = settings?.cosell?.offerApproval;
    return [...new Set([...DRAFT_FIELDS, ...(rule ? [rule.field, ...(rule.approvedByField ? [rule.approvedByField] : [])] : [])])];
  },
  // Only environments set up since each column was added have ccs_coselldrafterrors and the offer's columns; the currency is read where the environment shows it.
  optionalFields: ['ccs_coselldrafterrors', CURRENCY, ...Object.values(OPPORTUNITY_OFFER_COLUMNS)],
  related: draftRelations,
  ask: (record, settings, related) => opportunityToDraftOffer(record, related as OpportunityRelations | undefined, settings),
  madeField: 'ccs_commerceofferid',
  // When the step published the offer after its approval, the opportunity shows when (who: the rule's approvedByField, set in the environment).
  made: (offer) => {
    const publishedAt = offerPublishedAt(offer);
    return { ccs_commerceofferid: offer.id, ...DRAFT_ERRORS.cleared, ...(publishedAt && { [OPPORTUNITY_OFFER_COLUMNS.approvedAt]: publishedAt }) };
  },
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
