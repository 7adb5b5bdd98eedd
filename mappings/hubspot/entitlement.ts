// Entitlement (with its terms) -> the custom object marketplace_entitlement, keyed by entitlement_id,
// associated to the buyer's company and the offer's deal. Where the account has no custom objects
// (HubSpot sells them with Enterprise), the documented fallback: a line item on the offer's deal, keyed by
// commerce_entitlement_id, its price the commit amount and its description the rest. The values are the
// canonical entitlement's (mappings/canonical/entitlement.ts).
import type { Entitlement } from '../../commerce/models.ts';
import { ENTITLEMENT, REVENUE_VALUES, type CanonicalEntitlement, type EntitlementWithTerms } from '../canonical/entitlement.ts';
import { canonicalMapping, fieldsOf, fieldsTaking, lookup, type FieldTable } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';
import { ENTITLEMENT_FALLBACK_OBJECT, ENTITLEMENT_ID_PROPERTY, ENTITLEMENT_OBJECT } from './schema.ts';

/** The entitlement's facts under their HubSpot property names (the custom object's, and the line item's description lines). */
const FACTS: FieldTable<CanonicalEntitlement> = {
  status: 'status',
  start_date: 'startTime',
  end_date: 'endTime',
  commit_amount: 'commitAmount',
  used_commit_amount: 'usedCommitAmount',
  credit_amount: 'creditAmount',
  used_credit_amount: 'usedCreditAmount',
  annualized_amount: 'annualizedAmount',
  currency: 'currency',
  marketplace: 'marketplace',
  marketplace_agreement_id: 'agreementId',
  marketplace_subscription_id: 'subscriptionId',
  product_id: 'productId',
  offer_id: 'offerId',
  invoiced_amount: 'invoicedAmount',
  gross_amount: 'grossAmount',
  collectable_amount: 'collectableAmount',
  disbursed_amount: 'disbursedAmount',
  reported_amount: 'reportedAmount',
  net_terms_days: 'netTermsInDays',
  auto_renew: 'autoRenew',
  agreement_status: 'agreementStatus',
  agreement_pdf_url: 'agreementPdfUrl',
  agreement_pdf_note: 'agreementPdfNote',
  initial_agreement_id: 'initialAgreementId',
  payment_installments: 'paymentInstallments',
};

const onOffersDeal = lookup<CanonicalEntitlement>('offerId', 'commerce_offer_id', "associated to the offer's deal (commerce_offer_id = entitlement.offerID)");

export const entitlementToHubSpotEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = canonicalMapping(ENTITLEMENT, {
  object: ENTITLEMENT_OBJECT,
  externalIdField: ENTITLEMENT_ID_PROPERTY,
  // Properties an account set up before them lacks: written where it has them (mappings/fit-to-schema.ts).
  optionalFields: fieldsTaking(FACTS, REVENUE_VALUES),
  fields: {
    entitlement_name: 'name',
    ...FACTS,
    companies: lookup('buyerId', 'commerce_buyer_id', "associated to the buyer's company (commerce_buyer_id = entitlement.buyerID)"),
    deals: onOffersDeal,
  },
});

/** The fallback: one line item per entitlement on its offer's deal. */
export const entitlementToLineItem: EntityMapping<Entitlement, EntitlementWithTerms> = canonicalMapping(ENTITLEMENT, {
  object: ENTITLEMENT_FALLBACK_OBJECT,
  externalIdField: 'commerce_entitlement_id',
  fields: {
    name: 'name',
    price: { describe: 'the commit amount (current term, else info.commitAmount)', value: (record) => record.commitAmount },
    quantity: { describe: '1', value: () => 1 },
    description: {
      describe: 'status, dates, amounts, currency, marketplace and its ids, product and offer, as "name: value" lines',
      value: (record) => Object.entries(fieldsOf(record, FACTS)).filter(([, value]) => value !== null).map(([name, value]) => `${name}: ${value}`).join('\n'),
    },
    deals: { ...(onOffersDeal as { describe: string; value(record: CanonicalEntitlement): unknown }), describe: "on the offer's deal (commerce_offer_id = entitlement.offerID)" },
  },
});
