// Opportunity -> private-offer draft (CRM to commerce). An Opportunity with Private Offer Requested and a
// product asks for one draft offer on its Account's buyer, priced from its Amount, due by its Close Date,
// with its contacts (those of its contact roles that came from the commerce side), carrying its Id; the offer id goes back as Commerce_Offer_Id__c (the Opportunity's
// external id), so when the offer later syncs to Salesforce it updates this same Opportunity.
import type { CrmRecord } from '../../crm/connector.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import { dateOnly, isCrmTrue, nonNegativeAmount } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';

export type DraftOfferRequest = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  info?: { commitAmount: number; currency: string };
  /** The commerce contacts of the Opportunity's contact roles (those synced from the commerce side). */
  contactIds?: string[];
  metaInfo: { crmAOpportunityId: string };
};

const FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Private_Offer_Requested__c', 'Commerce_Product_Id__c', 'Commerce_Offer_Id__c'];
/** The draft's reasons have a field of their own; an org set up before it had one uses Cosell_Errors__c (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'Cosell_Draft_Errors__c', shared: 'Cosell_Errors__c' }, 32_000);

export function opportunityToDraftOffer(opportunity: CrmRecord, contactIds: string[] = []): { asks: false } | { asks: true; request: DraftOfferRequest } | { asks: true; refused: string } {
  if (!isCrmTrue(opportunity.Private_Offer_Requested__c)) return { asks: false };
  const problems: string[] = [];
  const productID = String(opportunity.Commerce_Product_Id__c ?? '').trim();
  if (!productID) problems.push('productID: no marketplace product is named; fill Commerce Product Id with the product to offer');
  const buyerID = String((opportunity.Account as CrmRecord | null | undefined)?.Commerce_Buyer_Id__c ?? '').trim();
  if (!buyerID) problems.push('buyerID: the account is not linked to a marketplace buyer; choose an account synced from the marketplace (it has a Commerce Buyer Id), then save the opportunity again');
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const commitAmount = nonNegativeAmount(opportunity.Amount);
  const close = dateOnly(opportunity.CloseDate);
  return {
    asks: true,
    request: {
      name: String(opportunity.Name ?? opportunity.Id),
      offerType: 'PRIVATE',
      productID,
      buyerID,
      ...(close && { expireTime: `${close}T23:59:59.000Z` }),
      // The Amount is in the Opportunity's currency (a multi-currency org's CurrencyIsoCode), else USD.
      ...(commitAmount !== undefined && { info: { commitAmount, currency: String(opportunity.CurrencyIsoCode || 'USD') } }),
      ...(contactIds.length > 0 && { contactIds: [...new Set(contactIds)].sort() }),
      metaInfo: { crmAOpportunityId: String(opportunity.Id) },
    },
  };
}

/** The Salesforce side of the opportunity-draft-offer flow. */
export const opportunityDraftOfferSide: CrmSide<DraftOfferRequest> = {
  object: 'Opportunity',
  fields: () => FIELDS,
  // Only multi-currency orgs have CurrencyIsoCode; only orgs set up since the field was added have Cosell_Draft_Errors__c.
  optionalFields: ['CurrencyIsoCode', 'Cosell_Draft_Errors__c'],
  // The Opportunity's contacts: its contact roles' Contacts that came from the commerce side.
  async related(crm, records) {
    const asking = records.filter((record) => record.Private_Offer_Requested__c === true).map((record) => String(record.Id));
    const byOpportunity = new Map<string, string[]>();
    if (asking.length === 0) return byOpportunity;
    const roles = await crm.findWhereIn('OpportunityContactRole', 'OpportunityId', asking, ['ContactId']);
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
  },
  ask: (record, _settings, contactIds) => opportunityToDraftOffer(record, contactIds as string[] | undefined),
  madeField: 'Commerce_Offer_Id__c',
  made: (offer) => ({ Commerce_Offer_Id__c: offer.id, ...DRAFT_ERRORS.cleared }),
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
