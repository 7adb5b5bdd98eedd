// Co-sell referral -> HubSpot deal in the "Co-sell referrals" pipeline, keyed by commerce_referral_id and
// associated to its buyer's company. A referral made from a seller's deal carries that deal's id
// (crmBDealId) and updates it: the co-sell fields show the referral's status and stage, and the rest of the
// deal stays the seller's (createOnly): its pipeline and stage (kept in step both ways by the stage sync),
// and its name, amount and close date, which the referral only took from the deal when it was shared (a
// referral change must not put them back over the seller's edits). Inbound referrals (sent by a partner)
// become such deals too: made with the partner's name, value and date, then worked by the seller alike.
// The values are the canonical referral's (mappings/canonical/referral.ts).
import type { Referral } from '../../commerce/models.ts';
import { canonicalMapping, lookup, type FieldTable } from '../canonical/record.ts';
import { cosellStageThrough, inboundReferral, REFERRAL, type CanonicalReferral } from '../canonical/referral.ts';
import type { EntityMapping } from '../types.ts';
import { REFERRAL_PIPELINE } from './schema.ts';
import { COSELL_TO_HUBSPOT_STAGE } from './stages.ts';

const DEAL = {
  object: 'deals',
  externalIdField: 'commerce_referral_id',
  createOnly: ['pipeline', 'dealstage', 'dealname', 'amount', 'closedate'],
  carriedCrmId: (record: CanonicalReferral) => record.crmIds.hubspot,
};

const FIELDS: FieldTable<CanonicalReferral> = {
  dealname: { describe: 'referral.name (else "Referral <id>") (when the deal is made; then the seller\'s)', value: (record) => record.dealName },
  pipeline: { describe: '"Co-sell referrals" (when the deal is made)', value: () => REFERRAL_PIPELINE },
  dealstage: cosellStageThrough(COSELL_TO_HUBSPOT_STAGE, 'referral.stage through the co-sell -> HubSpot stage table (when made; then kept in step both ways)'),
  amount: { describe: "referral.dealValue (when the deal is made; then the seller's)", value: (record) => record.dealValue },
  // No creation-date stand-in: HubSpot does not require a close date, and a made-up one would mislead.
  closedate: { describe: "referral.expectedCloseDate (when the deal is made; then the seller's)", value: (record) => record.expectedCloseDate },
  cosell_partner: 'partner',
  cosell_status: 'status',
  cosell_stage: 'stage',
  referral_direction: 'direction',
  companies: lookup('buyerId', 'commerce_buyer_id', "associated to the buyer's company (commerce_buyer_id = referral.buyerID)"),
};

export const referralToDeal: EntityMapping<Referral> = canonicalMapping(REFERRAL, { ...DEAL, fields: FIELDS });
export const inboundReferralToDeal: EntityMapping<Referral> = canonicalMapping(inboundReferral({ account: 'company', opportunity: 'deal' }), { ...DEAL, fields: FIELDS });
