// Entitlement (with its terms) -> ccs_marketplaceentitlement, keyed by ccs_entitlementid, bound to its
// buyer's account (ccs_accountid) and its offer's opportunity (ccs_opportunityid) by their keys.
import type { Entitlement } from '../../commerce/models.ts';
import type { EntitlementWithTerms } from '../salesforce/entitlement.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, currentTerm, defined, isoDateTime, marketplaceIds, marketplaceName, UnparseableTimeError } from '../values.ts';

export type { EntitlementWithTerms };

export const entitlementToDynamicsEntitlement: EntityMapping<Entitlement, EntitlementWithTerms> = {
  entity: 'entitlement',
  object: 'ccs_marketplaceentitlement',
  externalIdField: 'ccs_entitlementid',
  picklists: {},
  describe: {
    ccs_name: 'entitlement.name (else the id)',
    ccs_status: 'entitlement.status',
    ccs_startdate: 'entitlement.startTime (date-time)',
    ccs_enddate: 'entitlement.endTime (date-time; cleared when null)',
    ccs_commitamount: 'current term commitAmount, else info.commitAmount',
    ccs_usedcommitamount: 'current term usedCommitAmount',
    ccs_creditamount: 'current term creditAmount',
    ccs_usedcreditamount: 'current term usedCreditAmount',
    ccs_annualizedamount: 'info.annualizedAmount',
    ccs_currency: 'info.currency (USD when absent)',
    ccs_marketplace: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    ccs_marketplaceagreementid: 'A: agreement id; B: asset id; C: entitlement name; D: order id; E/F: offer id',
    ccs_marketplacesubscriptionid: 'A: license ARN; B: subscription id; D: instance id',
    ccs_productid: 'entitlement.productID',
    ccs_offerid: 'entitlement.offerID',
    ccs_accountid: "the buyer's account, by ccs_commercebuyerid = entitlement.buyerID",
    ccs_opportunityid: "the offer's opportunity, by ccs_commerceofferid = entitlement.offerID",
  },
  map(entitlement, related) {
    if (!entitlement.id) return fail('the entitlement has no id');
    try {
      const term = currentTerm(entitlement, related?.terms ?? []);
      const ids = marketplaceIds(entitlement);
      return ok({
        object: 'ccs_marketplaceentitlement',
        externalIdField: 'ccs_entitlementid',
        externalId: entitlement.id,
        fields: defined({
          ccs_name: entitlement.name || entitlement.id,
          ccs_status: entitlement.status,
          ccs_startdate: isoDateTime(entitlement.startTime, 'startTime'),
          ccs_enddate: isoDateTime(entitlement.endTime, 'endTime'),
          ccs_commitamount: amount(term?.commitAmount) ?? amount(entitlement.info?.commitAmount),
          ccs_usedcommitamount: amount(term?.usedCommitAmount),
          ccs_creditamount: amount(term?.creditAmount),
          ccs_usedcreditamount: amount(term?.usedCreditAmount),
          ccs_annualizedamount: amount(entitlement.info?.annualizedAmount),
          ccs_currency: entitlement.info?.currency || 'USD',
          ccs_marketplace: marketplaceName(entitlement.partner),
          ccs_marketplaceagreementid: ids.agreementId,
          ccs_marketplacesubscriptionid: ids.subscriptionId,
          ccs_productid: entitlement.productID,
          ccs_offerid: entitlement.offerID,
          ccs_accountid: entitlement.buyerID ? { ccs_commercebuyerid: entitlement.buyerID } : undefined,
          ccs_opportunityid: entitlement.offerID ? { ccs_commerceofferid: entitlement.offerID } : undefined,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`entitlement ${entitlement.id}: ${error.message}`);
      throw error;
    }
  },
};
