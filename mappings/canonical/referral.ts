// The co-sell referral as every CRM shows it: computed once (issue #25 section 1). Two flows read it:
// every referral (a co-sell referral record, or the seller's deal it was made from), and an inbound
// referral sent by a partner, which becomes a new opportunity on its buyer's account and so needs a
// buyer and a close date.
import type { Referral, Time } from '../../commerce/models.ts';
import { amount, commerceCurrency, isoDate, marketplaceName } from '../values.ts';
import { computing, type CanonicalRecord, type Computed, type FieldSource } from './record.ts';

export type CanonicalReferral = {
  id: string;
  /** The referral's own name, for a record that is the referral. */
  name: string;
  /** The name of an opportunity (deal) made for the referral. */
  dealName: string;
  partner?: string;
  direction?: string;
  status?: string;
  stage?: string;
  dealValue?: number;
  /** The currency as the referral gives it (none when it gives none). */
  currency?: string;
  /** The currency dealValue is in: the referral's, else USD (the contract's default). */
  valueCurrency: string;
  expectedCloseDate?: string | null;
  description?: string;
  buyerId?: string;
  offerId?: string;
  /** The CRM record the referral already carries (crmAOpportunityId, crmBDealId, crmCOpportunityId), as it came. */
  crmIds: { salesforce?: string; hubspot?: string; dynamics?: string };
};

/** An inbound referral: always on a buyer, and with a close date (a new opportunity needs one in Salesforce). */
export type CanonicalInboundReferral = CanonicalReferral & { buyerId: string; closeDate?: string | null };

const DESCRIBE: CanonicalRecord<Referral, unknown, CanonicalReferral>['describe'] = {
  id: 'referral.id',
  name: 'referral.name (else the id)',
  dealName: 'referral.name (else "Referral <id>")',
  partner: 'referral.partner as "Marketplace A".."Marketplace F"',
  direction: 'referral.direction (INBOUND or OUTBOUND)',
  status: 'referral.status',
  stage: 'referral.stage',
  dealValue: 'referral.dealValue',
  currency: 'referral.currency',
  valueCurrency: 'referral.currency (USD when absent): the currency of the deal value',
  expectedCloseDate: 'referral.expectedCloseDate (date only)',
  description: 'referral.description',
  buyerId: 'referral.buyerID',
  offerId: 'referral.offerID',
  crmIds: 'referral.crmAOpportunityId / crmBDealId / crmCOpportunityId: the record the referral already has in each CRM',
};

function referralValues(referral: Referral): CanonicalReferral {
  return {
    id: referral.id,
    name: referral.name || referral.id,
    dealName: referral.name || `Referral ${referral.id}`,
    partner: marketplaceName(referral.partner),
    direction: referral.direction,
    status: referral.status,
    stage: referral.stage,
    dealValue: amount(referral.dealValue),
    currency: referral.currency,
    valueCurrency: commerceCurrency(referral.currency),
    expectedCloseDate: isoDate(referral.expectedCloseDate, 'expectedCloseDate'),
    description: referral.description,
    buyerId: referral.buyerID,
    offerId: referral.offerID,
    crmIds: { salesforce: referral.crmAOpportunityId || undefined, hubspot: referral.crmBDealId || undefined, dynamics: referral.crmCOpportunityId || undefined },
  };
}

export const REFERRAL: CanonicalRecord<Referral, unknown, CanonicalReferral> = {
  entity: 'referral',
  id: (record) => record.id,
  describe: DESCRIBE,
  compute(referral) {
    if (!referral.id) return { ok: false, reason: 'the referral has no id' };
    return computing(`referral ${referral.id}`, () => referralValues(referral));
  },
};

/**
 * The inbound referral, refused in the CRM's own words when it names no buyer (`where`: what the CRM calls
 * the account and the opportunity it would make, e.g. company and deal).
 */
export function inboundReferral(where: { account: string; opportunity: string }): CanonicalRecord<Referral, unknown, CanonicalInboundReferral> {
  return {
    entity: 'inbound-referral',
    id: (record) => record.id,
    describe: { ...DESCRIBE, buyerId: 'referral.buyerID (an inbound referral without one is refused)', closeDate: 'referral.expectedCloseDate, else its creation date (date only)' },
    compute(referral): Computed<CanonicalInboundReferral> {
      if (!referral.id) return { ok: false, reason: 'the referral has no id' };
      const buyerId = referral.buyerID;
      if (!buyerId) return { ok: false, reason: `referral ${referral.id} names no buyer, so there is no ${where.account} to put its ${where.opportunity} on` };
      return computing(`referral ${referral.id}`, () => {
        const values = referralValues(referral);
        // The creation date is read only when there is no expected close date.
        return { ...values, buyerId, closeDate: values.expectedCloseDate ?? isoDate(referral.creationTime as Time | undefined, 'creationTime') };
      });
    },
  };
}

/**
 * A CRM's stage for a new opportunity made for a referral: its co-sell stage through the CRM's table
 * (co-sell stage -> CRM stage); a referral without a stage, or one the table lacks, starts at Prospect's.
 */
export function cosellStageThrough<C extends CanonicalReferral>(table: Record<string, string>, describe: string): FieldSource<C> {
  return { describe, value: (record) => table[record.stage ?? 'Prospect'] ?? table.Prospect };
}
