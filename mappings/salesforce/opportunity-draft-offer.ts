// Opportunity -> private-offer draft (CRM to commerce). Pure: an Opportunity with Private Offer
// Requested and a product asks for one draft offer on its Account's buyer, priced from its Amount, due
// by its Close Date, carrying its Id; the offer id goes back as Commerce_Offer_Id__c (the Opportunity's
// external id), so when the offer later syncs to Salesforce it updates this same Opportunity.
import type { CrmRecord } from '../../crm/connector.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';

export type DraftOfferRequest = {
  name: string;
  offerType: 'PRIVATE';
  productID: string;
  buyerID: string;
  expireTime?: string;
  info?: { commitAmount: number; currency: string };
  metaInfo: { crmAOpportunityId: string };
};

const FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Private_Offer_Requested__c', 'Commerce_Product_Id__c', 'Commerce_Offer_Id__c', 'Cosell_Errors__c'];

export function opportunityToDraftOffer(opportunity: CrmRecord): { asks: false } | { asks: true; request: DraftOfferRequest } | { asks: true; refused: string } {
  if (opportunity.Private_Offer_Requested__c !== true && opportunity.Private_Offer_Requested__c !== 'true') return { asks: false };
  const problems: string[] = [];
  const productID = String(opportunity.Commerce_Product_Id__c ?? '').trim();
  if (!productID) problems.push('productID: no marketplace product is named; fill Commerce Product Id with the product to offer');
  const buyerID = String((opportunity.Account as CrmRecord | null | undefined)?.Commerce_Buyer_Id__c ?? '').trim();
  if (!buyerID) problems.push('buyerID: the account is not linked to a marketplace buyer; choose an account synced from the marketplace (it has a Commerce Buyer Id), then save the opportunity again');
  if (problems.length > 0) return { asks: true, refused: problems.join('\n') };
  const amount = Number(opportunity.Amount);
  return {
    asks: true,
    request: {
      name: String(opportunity.Name ?? opportunity.Id),
      offerType: 'PRIVATE',
      productID,
      buyerID,
      ...(typeof opportunity.CloseDate === 'string' && /^\d{4}-\d{2}-\d{2}/.test(opportunity.CloseDate) && { expireTime: `${opportunity.CloseDate.slice(0, 10)}T23:59:59.000Z` }),
      ...(opportunity.Amount !== null && opportunity.Amount !== undefined && Number.isFinite(amount) && amount >= 0 && { info: { commitAmount: amount, currency: 'USD' } }),
      metaInfo: { crmAOpportunityId: String(opportunity.Id) },
    },
  };
}

/** The Salesforce side of the opportunity-draft-offer flow. */
export const opportunityDraftOfferSide: CrmSide<DraftOfferRequest> = {
  object: 'Opportunity',
  fields: () => FIELDS,
  ask: (record) => opportunityToDraftOffer(record),
  madeField: 'Commerce_Offer_Id__c',
  made: (offer) => ({ Commerce_Offer_Id__c: offer.id }),
  refused: (message) => ({ Cosell_Errors__c: `Private offer draft: ${message}`.slice(0, 32_000) }),
};
