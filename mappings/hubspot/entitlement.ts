// Entitlement (with its terms) -> the custom object marketplace_entitlement, keyed by entitlement_id,
// associated to the buyer's company and the offer's deal. Where the account has no custom objects
// (HubSpot sells them with Enterprise), the documented fallback: a line item on the offer's deal, keyed by
// commerce_entitlement_id, its price the commit amount and its description the rest.
import type { Entitlement } from '../../commerce/models.ts';
import type { EntitlementWithTerms } from '../salesforce/entitlement.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, currentTerm, defined, isoDateTime, marketplaceIds, marketplaceName, UnparseableTimeError } from '../values.ts';
import { ENTITLEMENT_FALLBACK_OBJECT, ENTITLEMENT_ID_PROPERTY, ENTITLEMENT_OBJECT } from './schema.ts';

function facts(entitlement: Entitlement, { terms }: EntitlementWithTerms) {
  const term = currentTerm(entitlement, terms);
  const ids = marketplaceIds(entitlement);
  return {
    status: entitlement.status,
    start_date: isoDateTime(entitlement.startTime, 'startTime'),
    end_date: isoDateTime(entitlement.endTime, 'endTime'),
    commit_amount: amount(term?.commitAmount) ?? amount(entitlement.info?.commitAmount),
    used_commit_amount: amount(term?.usedCommitAmount),
    credit_amount: amount(term?.creditAmount),
    used_credit_amount: amount(term?.usedCreditAmount),
    annualized_amount: amount(entitlement.info?.annualizedAmount),
    currency: entitlement.info?.currency || 'USD',
    marketplace: marketplaceName(entitlement.partner),
    marketplace_agreement_id: ids.agreementId,
    marketplace_subscription_id: ids.subscriptionId,
    product_id: entitlement.productID,
    offer_id: entitlement.offerID,
  };
}

export const entitlementToHubSpotEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = {
  entity: 'entitlement',
  object: ENTITLEMENT_OBJECT,
  externalIdField: ENTITLEMENT_ID_PROPERTY,
  picklists: {},
  describe: {
    entitlement_name: 'entitlement.name (else the id)',
    status: 'entitlement.status',
    start_date: 'entitlement.startTime',
    end_date: 'entitlement.endTime (cleared when null)',
    commit_amount: 'current term commitAmount, else info.commitAmount',
    used_commit_amount: 'current term usedCommitAmount',
    credit_amount: 'current term creditAmount',
    used_credit_amount: 'current term usedCreditAmount',
    annualized_amount: 'info.annualizedAmount',
    currency: 'info.currency (USD when absent)',
    marketplace: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    marketplace_agreement_id: 'A: agreement id; B: asset id; C: entitlement name; D: order id; E/F: offer id',
    marketplace_subscription_id: 'A: license ARN; B: subscription id; D: instance id',
    product_id: 'entitlement.productID',
    offer_id: 'entitlement.offerID',
    companies: "associated to the buyer's company (commerce_buyer_id = entitlement.buyerID)",
    deals: "associated to the offer's deal (commerce_offer_id = entitlement.offerID)",
  },
  map(entitlement, related) {
    if (!entitlement.id) return fail('the entitlement has no id');
    try {
      return ok({
        object: ENTITLEMENT_OBJECT,
        externalIdField: ENTITLEMENT_ID_PROPERTY,
        externalId: entitlement.id,
        fields: defined({
          entitlement_name: entitlement.name || entitlement.id,
          ...facts(entitlement, related),
          companies: entitlement.buyerID ? { commerce_buyer_id: entitlement.buyerID } : undefined,
          deals: entitlement.offerID ? { commerce_offer_id: entitlement.offerID } : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`entitlement ${entitlement.id}: ${error.message}`);
      throw error;
    }
  },
};

/** The fallback: one line item per entitlement on its offer's deal. */
export const entitlementToLineItem: EntityMapping<Entitlement, EntitlementWithTerms> = {
  entity: 'entitlement',
  object: ENTITLEMENT_FALLBACK_OBJECT,
  externalIdField: 'commerce_entitlement_id',
  picklists: {},
  describe: {
    name: 'entitlement.name (else the id)',
    price: 'the commit amount (current term, else info.commitAmount)',
    quantity: '1',
    description: 'status, dates, amounts, currency, marketplace and its ids, product and offer, as "name: value" lines',
    deals: "on the offer's deal (commerce_offer_id = entitlement.offerID)",
  },
  map(entitlement, related) {
    if (!entitlement.id) return fail('the entitlement has no id');
    try {
      const all = defined(facts(entitlement, related));
      return ok({
        object: ENTITLEMENT_FALLBACK_OBJECT,
        externalIdField: 'commerce_entitlement_id',
        externalId: entitlement.id,
        fields: defined({
          name: entitlement.name || entitlement.id,
          price: all.commit_amount,
          quantity: 1,
          description: Object.entries(all).filter(([, value]) => value !== null).map(([name, value]) => `${name}: ${value}`).join('\n'),
          deals: entitlement.offerID ? { commerce_offer_id: entitlement.offerID } : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`entitlement ${entitlement.id}: ${error.message}`);
      throw error;
    }
  },
};
