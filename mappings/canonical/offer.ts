// The private offer as every CRM shows it (its Opportunity, deal or opportunity): computed once (issue #25
// section 1). The stage maps, pipelines and carried-id conversions stay each CRM's own.
import type { Offer } from '../../commerce/models.ts';
import { amount, commerceCurrency, isoDate, isoDateTime, marketplaceName } from '../values.ts';
import { computing, type CanonicalRecord, type FieldSource } from './record.ts';

export type CanonicalOffer = {
  id: string;
  name: string;
  /** The status the CRM's stage map reads: the offer's, else PENDING_CREATE (an offer the service has not reported on yet). */
  stageStatus: string;
  /** The status as the service reports it, kept as it came. */
  status?: string;
  closeDate?: string | null;
  expiration?: string | null;
  commitAmount?: number;
  currency: string;
  marketplace?: string;
  offerType?: string;
  url?: string;
  buyerId?: string;
  /** The offer's contacts, each once, in the order the offer names them. */
  contactIds?: string[];
  /** The record the offer was drafted from in each CRM (metaInfo.crmAOpportunityId, crmBDealId, crmCOpportunityId), as they came. */
  crmIds: { salesforce?: string; hubspot?: string; dynamics?: string };
};

/**
 * The day an offer closes, for a CRM's close-date field: its expireTime, else the day it was accepted
 * (metaInfo.offerAcceptDate), else the day it was made (creationTime). Never lastUpdateTime: our own
 * write-back moves it, and the CRM record would be rewritten on every touch. Without any of these dates
 * there is none (undefined, or null when the last one is null); a date that is not one is an error.
 */
function offerCloseDate(offer: Offer): string | null | undefined {
  return isoDate(offer.expireTime, 'expireTime') ?? isoDate(offer.metaInfo?.offerAcceptDate, 'metaInfo.offerAcceptDate') ?? isoDate(offer.creationTime, 'creationTime');
}

export const OFFER: CanonicalRecord<Offer, unknown, CanonicalOffer> = {
  entity: 'offer',
  id: (record) => record.id,
  describe: {
    id: 'offer.id',
    name: 'offer.name (else "Offer <id>")',
    stageStatus: 'offer.status (PENDING_CREATE when absent), for the stage map',
    status: 'offer.status as the service reports it',
    closeDate: 'offer.expireTime, else the acceptance date, else the creation date (date only)',
    expiration: 'offer.expireTime (date-time; cleared when null)',
    commitAmount: 'offer.info.commitAmount',
    currency: 'offer.info.currency (USD when absent)',
    marketplace: 'offer.partner as "Marketplace A".."Marketplace F"',
    offerType: 'offer.offerType (PRIVATE, CPPO, CPPO_IN, CPPO_OUT, ...)',
    url: 'offer.info.privateOfferUrl',
    buyerId: 'offer.buyerID',
    contactIds: 'offer.contactIds, each once',
    crmIds: 'offer.metaInfo.crmAOpportunityId / crmBDealId / crmCOpportunityId: the record the offer was drafted from in each CRM',
  },
  compute(offer) {
    if (!offer.id) return { ok: false, reason: 'the offer has no id' };
    return computing(`offer ${offer.id}`, () => ({
      id: offer.id,
      name: offer.name || `Offer ${offer.id}`,
      stageStatus: offer.status ?? 'PENDING_CREATE',
      status: offer.status,
      // Without a close date none is written: Salesforce refuses a new Opportunity without one, and that
      // offer waits as a dead letter saying so.
      closeDate: offerCloseDate(offer),
      expiration: isoDateTime(offer.expireTime, 'expireTime'),
      commitAmount: amount(offer.info?.commitAmount),
      currency: commerceCurrency(offer.info?.currency),
      marketplace: marketplaceName(offer.partner),
      offerType: offer.offerType,
      url: offer.info?.privateOfferUrl,
      buyerId: offer.buyerID,
      contactIds: offer.contactIds?.length ? [...new Set(offer.contactIds)] : undefined,
      crmIds: { salesforce: offer.metaInfo?.crmAOpportunityId || undefined, hubspot: offer.metaInfo?.crmBDealId || undefined, dynamics: offer.metaInfo?.crmCOpportunityId || undefined },
    }));
  },
};

/** A canonical offer value under a CRM's own description (its stage map, its close-date rule, the seller's own). */
export function offerValue(key: keyof CanonicalOffer & string, describe: string): FieldSource<CanonicalOffer> {
  return { describe, value: (record) => record[key] };
}
