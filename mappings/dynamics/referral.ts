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
// The values are the canonical referral's (mappings/canonical/referral.ts).
import type { Referral } from '../../commerce/models.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import { cosellStageThrough, inboundReferral, REFERRAL } from '../canonical/referral.ts';
import type { EntityMapping } from '../types.ts';
import { dynamicsGuid } from '../values.ts';
import { COSELL_STAGE_TO_STATE, COSELL_TO_DYNAMICS_STAGE } from './stages.ts';

export const referralToCosellReferral: EntityMapping<Referral> = canonicalMapping(REFERRAL, {
  object: 'ccs_cosellreferral',
  externalIdField: 'ccs_commercereferralid',
  fields: {
    ccs_name: 'name',
    ccs_partner: 'partner',
    ccs_status: 'status',
    ccs_stage: 'stage',
    ccs_direction: 'direction',
    ccs_dealvalue: 'dealValue',
    ccs_currency: 'currency',
    ccs_expectedclosedate: 'expectedCloseDate',
    ccs_accountid: lookup('buyerId', 'ccs_commercebuyerid', "the buyer's account, by ccs_commercebuyerid = referral.buyerID"),
    ccs_opportunityid: {
      describe: "referral.crmCOpportunityId (a GUID, lowercased, no braces) when it carries one, else the offer's opportunity by ccs_commerceofferid = referral.offerID",
      value: (record) => (record.crmIds.dynamics ? dynamicsGuid(record.crmIds.dynamics) : record.offerId ? { ccs_commerceofferid: record.offerId } : undefined),
    },
  },
});

export const inboundReferralToOpportunity: EntityMapping<Referral> = canonicalMapping(inboundReferral({ account: 'account', opportunity: 'opportunity' }), {
  object: 'opportunity',
  externalIdField: 'ccs_commercereferralid',
  createOnly: ['stepname', 'statecode'],
  // The contract wants Dataverse ids lowercased and without braces (§2.6).
  carriedCrmId: (record) => (record.crmIds.dynamics ? dynamicsGuid(record.crmIds.dynamics) : undefined),
  fields: {
    name: 'dealName',
    stepname: cosellStageThrough(COSELL_TO_DYNAMICS_STAGE, 'referral.stage through the co-sell -> Dynamics stage table (when made; then kept in step both ways)'),
    statecode: {
      describe: 'Won for a referral made at Launched, Lost at Closed Lost, else Open (when made, through WinOpportunity / LoseOpportunity)',
      value: (record) => COSELL_STAGE_TO_STATE[record.stage ?? 'Prospect'] ?? 'Open',
    },
    estimatedclosedate: 'closeDate',
    estimatedvalue: 'dealValue',
    parentaccountid: lookup('buyerId', 'ccs_commercebuyerid', "the referral's buyer's account, by ccs_commercebuyerid = referral.buyerID"),
    ccs_cosellpartner: 'partner',
    ccs_cosellstatus: 'status',
    ccs_cosellstage: 'stage',
    ccs_referraldirection: 'direction',
  },
});
