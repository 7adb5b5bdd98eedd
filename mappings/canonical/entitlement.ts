// The entitlement (with its terms) as every CRM shows it: computed once (issue #25 section 1).
import type { Entitlement, EntitlementTerm } from '../../commerce/models.ts';
import { amount, commerceCurrency, currentTerm, isoDateTime, marketplaceIds, marketplaceName } from '../values.ts';
import { computing, type CanonicalRecord } from './record.ts';

export type EntitlementWithTerms = { terms: EntitlementTerm[] };

export type CanonicalEntitlement = {
  id: string;
  name: string;
  status?: string;
  startTime?: string | null;
  endTime?: string | null;
  commitAmount?: number;
  usedCommitAmount?: number;
  creditAmount?: number;
  usedCreditAmount?: number;
  annualizedAmount?: number;
  currency: string;
  marketplace?: string;
  agreementId?: string;
  subscriptionId?: string;
  productId?: string;
  offerId?: string;
  buyerId?: string;
};

export const ENTITLEMENT: CanonicalRecord<Entitlement, EntitlementWithTerms | undefined, CanonicalEntitlement> = {
  entity: 'entitlement',
  id: (record) => record.id,
  describe: {
    id: 'entitlement.id',
    name: 'entitlement.name (else the id)',
    status: 'entitlement.status',
    startTime: 'entitlement.startTime',
    endTime: 'entitlement.endTime (cleared when null)',
    commitAmount: 'current term commitAmount, else info.commitAmount',
    usedCommitAmount: 'current term usedCommitAmount',
    creditAmount: 'current term creditAmount',
    usedCreditAmount: 'current term usedCreditAmount',
    annualizedAmount: 'info.annualizedAmount',
    currency: 'info.currency (USD when absent)',
    marketplace: 'entitlement.partner as "Marketplace A".."Marketplace F"',
    agreementId: 'A: agreement id; B: asset id; C: entitlement name; D: order id; E/F: offer id',
    subscriptionId: 'A: license ARN; B: subscription id; D: instance id',
    productId: 'entitlement.productID',
    offerId: 'entitlement.offerID',
    buyerId: 'entitlement.buyerID',
  },
  compute(entitlement, related) {
    if (!entitlement.id) return { ok: false, reason: 'the entitlement has no id' };
    return computing(`entitlement ${entitlement.id}`, () => {
      const term = currentTerm(entitlement, related?.terms ?? []);
      const ids = marketplaceIds(entitlement);
      return {
        id: entitlement.id,
        name: entitlement.name || entitlement.id,
        status: entitlement.status,
        startTime: isoDateTime(entitlement.startTime, 'startTime'),
        endTime: isoDateTime(entitlement.endTime, 'endTime'),
        commitAmount: amount(term?.commitAmount) ?? amount(entitlement.info?.commitAmount),
        usedCommitAmount: amount(term?.usedCommitAmount),
        creditAmount: amount(term?.creditAmount),
        usedCreditAmount: amount(term?.usedCreditAmount),
        annualizedAmount: amount(entitlement.info?.annualizedAmount),
        currency: commerceCurrency(entitlement.info?.currency),
        marketplace: marketplaceName(entitlement.partner),
        agreementId: ids.agreementId,
        subscriptionId: ids.subscriptionId,
        productId: entitlement.productID,
        offerId: entitlement.offerID,
        buyerId: entitlement.buyerID,
      };
    });
  },
};
