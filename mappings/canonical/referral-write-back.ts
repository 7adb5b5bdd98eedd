// What goes back onto a CRM opportunity (deal) that asked for a referral, CRM-neutral: the referral's id,
// status and stage, and the errors field (a partner's rejection, or why it was refused), cut to the CRM's
// text limit. Each CRM names its four fields; the values are the same on Salesforce, HubSpot and Dynamics.
import type { Referral } from '../../commerce/models.ts';
import type { CrmRecord } from '../../crm/connector.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import { referralShown } from '../../sync/referral-lifecycle.ts';

/**
 * A CRM's co-sell fields: where the referral id, its status, its stage, the reasons and the partner's review
 * end go (the review end is written in the same call as the rest, so a new referral costs one write, not two;
 * an org set up before the field lacks it: the side lists it among its optional fields).
 */
export type ReferralWriteBackFields = { id: string; status: string; stage: string; errors: string; reviewEnds: string };

/** The status a refused record shows: nothing was shared. */
export const NOT_SHARED = 'Not shared';

export function referralWriteBack(fields: ReferralWriteBackFields, textLimit: number): Pick<CrmSide<unknown>, 'made' | 'refused' | 'refusedAfterMade'> {
  return {
    // A referral the partner rejected shows why (sync/referral-lifecycle.ts), whichever pass writes it.
    made: (referral): CrmRecord => {
      const shown = referralShown(referral as Referral);
      return {
        [fields.id]: referral.id,
        [fields.status]: referral.status ?? null,
        [fields.stage]: referral.stage ?? null,
        [fields.errors]: shown.rejection?.slice(0, textLimit) ?? null,
        // Only a full referral says whether it is under review; a bare id leaves the field as it is.
        ...(referral.status !== undefined && { [fields.reviewEnds]: shown.reviewEnds }),
      };
    },
    refused: (message) => ({ [fields.status]: NOT_SHARED, [fields.errors]: message.slice(0, textLimit) }),
    // The next step refused for a record already made: the reasons only, so it keeps showing what was made.
    refusedAfterMade: (message) => ({ [fields.errors]: message.slice(0, textLimit) }),
  };
}
