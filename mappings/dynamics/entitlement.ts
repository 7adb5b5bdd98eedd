// Entitlement (with its terms) -> ccs_marketplaceentitlement, keyed by ccs_entitlementid, bound to its
// buyer's account (ccs_accountid) and its offer's opportunity (ccs_opportunityid) by their keys. The
// values are the canonical entitlement's (mappings/canonical/entitlement.ts).
import type { Entitlement } from '../../commerce/models.ts';
import { ENTITLEMENT, REVENUE_VALUES, type CanonicalEntitlement, type EntitlementWithTerms } from '../canonical/entitlement.ts';
import { canonicalMapping, fieldsTaking, lookup, type FieldTable } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export type { EntitlementWithTerms };

/** ccs_marketplaceentitlement's columns, by the canonical value each takes. */
const FIELDS: FieldTable<CanonicalEntitlement> = {
  ccs_name: 'name',
  ccs_status: 'status',
  ccs_startdate: 'startTime',
  ccs_enddate: 'endTime',
  ccs_commitamount: 'commitAmount',
  ccs_usedcommitamount: 'usedCommitAmount',
  ccs_creditamount: 'creditAmount',
  ccs_usedcreditamount: 'usedCreditAmount',
  ccs_annualizedamount: 'annualizedAmount',
  ccs_currency: 'currency',
  ccs_marketplace: 'marketplace',
  ccs_marketplaceagreementid: 'agreementId',
  ccs_marketplacesubscriptionid: 'subscriptionId',
  ccs_productid: 'productId',
  ccs_offerid: 'offerId',
  ccs_invoicedamount: 'invoicedAmount',
  ccs_grossamount: 'grossAmount',
  ccs_collectableamount: 'collectableAmount',
  ccs_disbursedamount: 'disbursedAmount',
  ccs_reportedamount: 'reportedAmount',
  ccs_nettermsdays: 'netTermsInDays',
  ccs_autorenew: 'autoRenew',
  ccs_agreementstatus: 'agreementStatus',
  ccs_agreementpdfurl: 'agreementPdfUrl',
  ccs_agreementpdfnote: 'agreementPdfNote',
  ccs_initialagreementid: 'initialAgreementId',
  ccs_paymentinstallments: 'paymentInstallments',
  ccs_accountid: lookup('buyerId', 'ccs_commercebuyerid', "the buyer's account, by ccs_commercebuyerid = entitlement.buyerID"),
  ccs_opportunityid: lookup('offerId', 'ccs_commerceofferid', "the offer's opportunity, by ccs_commerceofferid = entitlement.offerID"),
};

export const entitlementToDynamicsEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = canonicalMapping(ENTITLEMENT, {
  object: 'ccs_marketplaceentitlement',
  externalIdField: 'ccs_entitlementid',
  // Columns an environment set up before them lacks: written where it has them (mappings/fit-to-schema.ts).
  optionalFields: fieldsTaking(FIELDS, REVENUE_VALUES),
  fields: FIELDS,
});
