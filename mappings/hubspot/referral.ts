// Co-sell referral -> HubSpot deal in the "Co-sell referrals" pipeline, keyed by commerce_referral_id and
// associated to its buyer's company. A referral made from a seller's deal carries that deal's id
// (crmBDealId) and updates it: the co-sell fields show the referral's status and stage, and the rest of the
// deal stays the seller's (createOnly): its pipeline and stage (kept in step both ways by the stage sync),
// and its name, amount and close date, which the referral only took from the deal when it was shared (a
// referral change must not put them back over the seller's edits). Inbound referrals (sent by a partner)
// become such deals too: made with the partner's name, value and date, then worked by the seller alike.
import type { Referral } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, defined, isoDate, marketplaceName, UnparseableTimeError } from '../values.ts';
import { REFERRAL_PIPELINE } from './schema.ts';
import { COSELL_TO_HUBSPOT_STAGE } from './stages.ts';

function referralDeal(entity: 'referral' | 'inbound-referral'): EntityMapping<Referral> {
  return {
    entity,
    object: 'deals',
    externalIdField: 'commerce_referral_id',
    picklists: {},
    createOnly: ['pipeline', 'dealstage', 'dealname', 'amount', 'closedate'],
    describe: {
      dealname: 'referral.name (else "Referral <id>") (when the deal is made; then the seller\'s)',
      pipeline: '"Co-sell referrals" (when the deal is made)',
      dealstage: 'referral.stage through the co-sell -> HubSpot stage table (when made; then kept in step both ways)',
      amount: "referral.dealValue (when the deal is made; then the seller's)",
      closedate: "referral.expectedCloseDate (when the deal is made; then the seller's)",
      cosell_partner: 'referral.partner as "Marketplace A".."Marketplace F"',
      cosell_status: 'referral.status',
      cosell_stage: 'referral.stage',
      referral_direction: 'referral.direction (INBOUND or OUTBOUND)',
      companies: "associated to the buyer's company (commerce_buyer_id = referral.buyerID)",
    },
    map(referral) {
      if (!referral.id) return fail('the referral has no id');
      if (entity === 'inbound-referral' && !referral.buyerID) return fail(`referral ${referral.id} names no buyer, so there is no company to put its deal on`);
      try {
        return ok({
          object: 'deals',
          externalIdField: 'commerce_referral_id',
          externalId: referral.id,
          carriedCrmId: referral.crmBDealId || undefined,
          fields: defined({
            dealname: referral.name || `Referral ${referral.id}`,
            pipeline: REFERRAL_PIPELINE,
            dealstage: COSELL_TO_HUBSPOT_STAGE[referral.stage ?? 'Prospect'] ?? COSELL_TO_HUBSPOT_STAGE.Prospect,
            amount: amount(referral.dealValue),
            closedate: isoDate(referral.expectedCloseDate, 'expectedCloseDate'),
            cosell_partner: marketplaceName(referral.partner),
            cosell_status: referral.status,
            cosell_stage: referral.stage,
            referral_direction: referral.direction,
            companies: referral.buyerID ? { commerce_buyer_id: referral.buyerID } : undefined,
          }),
        });
      } catch (error) {
        if (error instanceof UnparseableTimeError) return fail(`referral ${referral.id}: ${error.message}`);
        throw error;
      }
    },
  };
}

export const referralToDeal = referralDeal('referral');
export const inboundReferralToDeal = referralDeal('inbound-referral');
