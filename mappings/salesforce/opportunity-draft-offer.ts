// Opportunity -> private-offer draft (CRM to commerce). An Opportunity with Private Offer Requested and a
// product asks for one draft offer on its Account's buyer, priced from its Amount, due by its Close Date,
// with its contacts (those of its contact roles that came from the commerce side), carrying its Id; the offer id goes back as Commerce_Offer_Id__c (the Opportunity's
// external id), so when the offer later syncs to Salesforce it updates this same Opportunity.
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { Ask, CrmSide } from '../../flows/crm-to-commerce.ts';
import { draftOfferAsk, type DraftOfferRequest as CanonicalDraftOfferRequest } from '../canonical/draft-offer-ask.ts';
import { orgDefaultCurrency } from '../cosell-values.ts';
import { draftErrorsWriteBack } from '../draft-errors.ts';
import { NOT_LINKED } from './opportunity-referral.ts';

/** The draft (A9), naming the Opportunity by metaInfo.crmAOpportunityId. */
export type DraftOfferRequest = CanonicalDraftOfferRequest<'crmAOpportunityId'>;

const FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Private_Offer_Requested__c', 'Commerce_Product_Id__c', 'Commerce_Offer_Id__c'];
/** The draft's reasons have a field of their own; an org set up before it had one uses Cosell_Errors__c (mappings/draft-errors.ts). */
const DRAFT_ERRORS = draftErrorsWriteBack({ own: 'Cosell_Draft_Errors__c', shared: 'Cosell_Errors__c' }, 32_000);

/** The Opportunity's fields as the draft's neutral values (mappings/canonical/draft-offer-ask.ts). */
export function opportunityToDraftOffer(opportunity: CrmRecord, contactIds: string[] = [], defaultCurrency?: string): Ask<DraftOfferRequest> {
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
  }, NOT_LINKED);
}

/** What a draft needs besides its Opportunity. */
type DraftRelations = { contactIds: string[]; defaultCurrency?: string };

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
  fields: () => FIELDS,
  // Only multi-currency orgs have CurrencyIsoCode; only orgs set up since the field was added have Cosell_Draft_Errors__c.
  optionalFields: ['CurrencyIsoCode', 'Cosell_Draft_Errors__c'],
  // What asking needs besides the Opportunity: its contacts (its contact roles' Contacts that came from
  // the commerce side) and the org's default currency, for one without a CurrencyIsoCode (read once per
  // connector: see the referral side).
  async related(crm, records) {
    const asking = records.filter((record) => record.Private_Offer_Requested__c === true);
    const byOpportunity = new Map<string, DraftRelations>();
    if (asking.length === 0) return byOpportunity;
    const defaultCurrency = await orgDefaultCurrency(crm, asking, (record) => record.CurrencyIsoCode);
    const contactsOf = await contactsByOpportunity(crm, asking.map((record) => String(record.Id)));
    for (const record of asking) byOpportunity.set(String(record.Id), { contactIds: contactsOf.get(String(record.Id)) ?? [], defaultCurrency });
    return byOpportunity;
  },
  ask: (record, _settings, related) => {
    // A bare list is the contacts alone (what `related` handed before it carried the currency too).
    const relations = Array.isArray(related) ? { contactIds: related as string[] } : (related as DraftRelations | undefined);
    return opportunityToDraftOffer(record, relations?.contactIds, relations?.defaultCurrency);
  },
  madeField: 'Commerce_Offer_Id__c',
  made: (offer) => ({ Commerce_Offer_Id__c: offer.id, ...DRAFT_ERRORS.cleared }),
  refused: DRAFT_ERRORS.refused,
  fitWrite: DRAFT_ERRORS.fitWrite,
};
