// Co-sell referrals into Dataverse, two ways:
// - every referral -> a ccs_cosellreferral row keyed by ccs_commercereferralid, bound to its buyer's account
//   (ccs_accountid) and to its opportunity (ccs_opportunityid): the GUID the referral carries
//   (crmCOpportunityId: it was made from that opportunity, or its inbound opportunity was made for it),
//   else the opportunity of its offer by ccs_commerceofferid;
// - an inbound referral (sent by a partner) -> a new opportunity keyed by ccs_commercereferralid on its
//   buyer's account. Its stepname (and state: a referral already Launched or Closed Lost makes a Won or
//   Lost opportunity) is set when it is made; after that the stage is kept in step both ways
//   under the connection's policy (createOnly), while ccs_cosellstatus / ccs_cosellstage show the
//   referral's own.
import type { Referral, Time } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { amount, defined, dynamicsGuid, isoDate, marketplaceName, UnparseableTimeError } from '../values.ts';
import { COSELL_STAGE_TO_STATE, COSELL_TO_DYNAMICS_STAGE } from './stages.ts';

export const referralToCosellReferral: EntityMapping<Referral> = {
  entity: 'referral',
  object: 'ccs_cosellreferral',
  externalIdField: 'ccs_commercereferralid',
  picklists: {},
  describe: {
    ccs_name: 'referral.name (else the id)',
    ccs_partner: 'referral.partner as "Marketplace A".."Marketplace F"',
    ccs_status: 'referral.status',
    ccs_stage: 'referral.stage',
    ccs_direction: 'referral.direction (INBOUND or OUTBOUND)',
    ccs_dealvalue: 'referral.dealValue',
    ccs_currency: 'referral.currency',
    ccs_expectedclosedate: 'referral.expectedCloseDate (date only)',
    ccs_accountid: "the buyer's account, by ccs_commercebuyerid = referral.buyerID",
    ccs_opportunityid: "referral.crmCOpportunityId (a GUID, lowercased, no braces) when it carries one, else the offer's opportunity by ccs_commerceofferid = referral.offerID",
  },
  map(referral) {
    if (!referral.id) return fail('the referral has no id');
    try {
      const opportunity = referral.crmCOpportunityId
        ? dynamicsGuid(referral.crmCOpportunityId)
        : referral.offerID
          ? { ccs_commerceofferid: referral.offerID }
          : undefined;
      return ok({
        object: 'ccs_cosellreferral',
        externalIdField: 'ccs_commercereferralid',
        externalId: referral.id,
        fields: defined({
          ccs_name: referral.name || referral.id,
          ccs_partner: marketplaceName(referral.partner),
          ccs_status: referral.status,
          ccs_stage: referral.stage,
          ccs_direction: referral.direction,
          ccs_dealvalue: amount(referral.dealValue),
          ccs_currency: referral.currency,
          ccs_expectedclosedate: isoDate(referral.expectedCloseDate, 'expectedCloseDate'),
          ccs_accountid: referral.buyerID ? { ccs_commercebuyerid: referral.buyerID } : undefined,
          ccs_opportunityid: opportunity,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`referral ${referral.id}: ${error.message}`);
      throw error;
    }
  },
};

export const inboundReferralToOpportunity: EntityMapping<Referral> = {
  entity: 'inbound-referral',
  object: 'opportunity',
  externalIdField: 'ccs_commercereferralid',
  picklists: {},
  createOnly: ['stepname', 'statecode'],
  describe: {
    name: 'referral.name (else "Referral <id>")',
    stepname: 'referral.stage through the co-sell -> Dynamics stage table (when made; then kept in step both ways)',
    statecode: 'Won for a referral made at Launched, Lost at Closed Lost, else Open (when made, through WinOpportunity / LoseOpportunity)',
    estimatedclosedate: 'referral.expectedCloseDate, else its creation date (date only)',
    estimatedvalue: 'referral.dealValue',
    parentaccountid: "the referral's buyer's account, by ccs_commercebuyerid = referral.buyerID",
    ccs_cosellpartner: 'referral.partner as "Marketplace A".."Marketplace F"',
    ccs_cosellstatus: 'referral.status',
    ccs_cosellstage: 'referral.stage',
    ccs_referraldirection: 'referral.direction (INBOUND)',
  },
  map(referral) {
    if (!referral.id) return fail('the referral has no id');
    if (!referral.buyerID) return fail(`referral ${referral.id} names no buyer, so there is no account to put its opportunity on`);
    try {
      const closeDate = isoDate(referral.expectedCloseDate, 'expectedCloseDate') ?? isoDate(referral.creationTime as Time | undefined, 'creationTime');
      const carried = referral.crmCOpportunityId;
      return ok({
        object: 'opportunity',
        externalIdField: 'ccs_commercereferralid',
        externalId: referral.id,
        carriedCrmId: carried ? dynamicsGuid(carried) : undefined,
        fields: defined({
          name: referral.name || `Referral ${referral.id}`,
          stepname: COSELL_TO_DYNAMICS_STAGE[referral.stage ?? 'Prospect'] ?? COSELL_TO_DYNAMICS_STAGE.Prospect,
          statecode: COSELL_STAGE_TO_STATE[referral.stage ?? 'Prospect'] ?? 'Open',
          estimatedclosedate: closeDate,
          estimatedvalue: amount(referral.dealValue),
          parentaccountid: { ccs_commercebuyerid: referral.buyerID },
          ccs_cosellpartner: marketplaceName(referral.partner),
          ccs_cosellstatus: referral.status,
          ccs_cosellstage: referral.stage,
          ccs_referraldirection: referral.direction,
        }),
      });
    } catch (error) {
      if (error instanceof UnparseableTimeError) return fail(`referral ${referral.id}: ${error.message}`);
      throw error;
    }
  },
};
