// Private offer -> opportunity, keyed by ccs_commerceofferid, on its buyer's account (parentaccountid).
// An offer made from an existing opportunity carries its GUID (metaInfo.crmCOpportunityId), so that
// opportunity is updated instead of a second one made. The stage is stepname (Pipeline Phase, text); the
// state (Open, Won, Lost) is a target the connector reaches with Dataverse's own close actions. The
// values are the canonical offer's (mappings/canonical/offer.ts).
import type { Offer } from '../../commerce/models.ts';
import { OFFER, offerValue } from '../canonical/offer.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';
import { dynamicsGuid } from '../values.ts';

/** Offer status (§3) -> stepname; overridable per connection (picklists.stepname). */
export const OFFER_STATUS_TO_STEP: Record<string, string> = {
  PENDING_CREATE: '1-Qualify',
  PENDING_ACCEPTANCE: '3-Propose',
  ACTIVE: '3-Propose',
  UPDATE_FAILED: '4-Close',
  PENDING_CANCEL: '4-Close',
  ACCEPTED: 'Won',
  USED: 'Won',
  EXPIRED: 'Lost',
  DELETED: 'Lost',
};

/**
 * Offer status (§3) -> the opportunity's state: a deal the buyer accepted is Won; one that expired, was
 * cancelled (PENDING_CANCEL is what Cancel Offer leaves, A9) or deleted is Lost; the rest are Open.
 * Dataverse closes an opportunity only through WinOpportunity / LoseOpportunity, which the connector
 * calls when this target differs from the row's state (crm/dynamics/state-transitions.ts); overridable
 * per connection (picklists.statecode). A status this map lacks (one the connection's stepname map names,
 * say) leaves the opportunity's state as it is: no statecode in the record, so no close or re-open, and
 * the rest of the record is written (offerToOpportunity.unmappedLeavesAlone).
 */
export const OFFER_STATUS_TO_STATE: Record<string, 'Open' | 'Won' | 'Lost'> = {
  PENDING_CREATE: 'Open',
  PENDING_ACCEPTANCE: 'Open',
  ACTIVE: 'Open',
  UPDATE_FAILED: 'Open',
  PENDING_CANCEL: 'Lost',
  ACCEPTED: 'Won',
  USED: 'Won',
  EXPIRED: 'Lost',
  DELETED: 'Lost',
};

export const offerToOpportunity: EntityMapping<Offer> = canonicalMapping(OFFER, {
  object: 'opportunity',
  externalIdField: 'ccs_commerceofferid',
  // Dataverse ids are GUIDs: the carried one lowercased and without braces (§2.6).
  carriedCrmId: ({ crmIds }) => (crmIds.dynamics ? dynamicsGuid(crmIds.dynamics) : undefined),
  // An unknown status (§9.5) on a new record: the opening stage, since the record needs one; an existing one keeps its stage.
  unknownOnCreate: 'PENDING_CREATE',
  picklists: { stepname: OFFER_STATUS_TO_STEP, statecode: OFFER_STATUS_TO_STATE },
  // The state moves the opportunity (a close, a re-open): a status the state map lacks moves it nowhere.
  unmappedLeavesAlone: ['statecode'],
  // On the seller's own opportunity (a private offer drafted from it) the stage, state and close date are the seller's.
  sellerKeeps: ['stepname', 'statecode', 'estimatedclosedate'],
  fields: {
    name: 'name',
    stepname: offerValue('stageStatus', "offer.status through the step map (PENDING_ACCEPTANCE -> 3-Propose, ACCEPTED -> Won, EXPIRED -> Lost, ...); the seller's own on an opportunity the offer was drafted from"),
    statecode: offerValue(
      'stageStatus',
      "offer.status through the state map (ACCEPTED, USED -> Won; EXPIRED, DELETED, PENDING_CANCEL -> Lost; the other statuses of the contract Open), set by WinOpportunity / LoseOpportunity or a re-open, never by a PATCH; a status the map lacks leaves the state as it is (nothing written, the record is not refused); the seller's own on an opportunity the offer was drafted from",
    ),
    estimatedclosedate: offerValue('closeDate', "offer.expireTime, else the acceptance date, else the creation date (date only); the seller's own on an opportunity the offer was drafted from"),
    estimatedvalue: 'commitAmount',
    parentaccountid: lookup('buyerId', 'ccs_commercebuyerid', "the buyer's account, by ccs_commercebuyerid = offer.buyerID"),
    ccs_marketplace: 'marketplace',
    ccs_offertype: 'offerType',
    ccs_offerstatus: 'status',
    ccs_offerurl: 'url',
    ccs_offerexpiration: 'expiration',
  },
});
