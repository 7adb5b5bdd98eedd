// An entitlement's renewal -> an opportunity on the buyer's account, keyed by ccs_commercerenewalkey
// (renewal-<entitlement id>), with lookups to the entitlement it renews and, once it arrives, the one
// that renewed it. The stage is stepname; the state (Open, Won, Lost) is a target the connector reaches
// with WinOpportunity / LoseOpportunity (crm/dynamics/state-transitions.ts). The values are the
// canonical renewal's (mappings/canonical/renewal.ts).
import type { Entitlement } from '../../commerce/models.ts';
import { RENEWAL, type RenewalContext } from '../canonical/renewal.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

/** Renewal outcome -> stepname; overridable per connection (picklists.stepname). */
export const RENEWAL_OUTCOME_TO_STEP: Record<string, string> = { DUE: '1-Qualify', DRAFTED: '3-Propose', WON: 'Won', LOST: 'Lost' };
/** Renewal outcome -> the opportunity's state, reached through Dataverse's close actions (picklists.statecode). */
export const RENEWAL_OUTCOME_TO_STATE: Record<string, 'Open' | 'Won' | 'Lost'> = { DUE: 'Open', DRAFTED: 'Open', WON: 'Won', LOST: 'Lost' };

export const renewalToDynamicsOpportunity: EntityMapping<Entitlement, RenewalContext> = canonicalMapping(RENEWAL, {
  object: 'opportunity',
  externalIdField: 'ccs_commercerenewalkey',
  picklists: { stepname: RENEWAL_OUTCOME_TO_STEP, statecode: RENEWAL_OUTCOME_TO_STATE },
  unmappedLeavesAlone: ['statecode'],
  fields: {
    name: 'name',
    stepname: { describe: 'the renewal outcome through the step map (DUE -> 1-Qualify, DRAFTED -> 3-Propose, WON -> Won, LOST -> Lost)', value: (record) => record.outcome },
    statecode: { describe: 'the renewal outcome through the state map (WON -> Won, LOST -> Lost, else Open), set by WinOpportunity / LoseOpportunity, never by a PATCH', value: (record) => record.outcome },
    estimatedclosedate: 'closeDate',
    estimatedvalue: 'amount',
    parentaccountid: lookup('buyerId', 'ccs_commercebuyerid', "the buyer's account, by ccs_commercebuyerid = entitlement.buyerID"),
    ccs_marketplace: 'marketplace',
    ccs_renewalofentitlementid: lookup('entitlementId', 'ccs_entitlementid', 'the entitlement it renews, by ccs_entitlementid = entitlement.id'),
    ccs_renewalentitlementid: lookup('renewalEntitlementId', 'ccs_entitlementid', 'the entitlement that renewed it, by ccs_entitlementid (empty until it arrives)'),
    ccs_renewalofferid: 'renewalOfferId',
    ccs_offerurl: 'renewalOfferUrl',
  },
});
