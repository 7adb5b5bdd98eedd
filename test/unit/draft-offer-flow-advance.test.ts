// The draft flow's next step for a record whose request changed (flows/opportunity-draft-offer.ts), on a
// stub commerce client recording its calls: a HubSpot or Dynamics connection without an approval rule sends
// its draft at once (no held step, request.publish absent), and a later change of the record's product lines
// still updates that draft, once, as on Salesforce; the commerce side's answer decides what is left to do.
import { describe, expect, it } from 'vitest';
import type { CommerceClient } from '../../commerce/index.ts';
import type { Offer } from '../../commerce/models.ts';
import { opportunityDraftOfferFlow } from '../../flows/opportunity-draft-offer.ts';

const product = { id: 'prod-1', name: `Seats "annual" \\ 日本`, partner: 'cloudB', info: { dimensions: [{ key: 'seats', type: 'COMMIT' }] } };
/** A deal's request without an approval rule: 40 seats at 36 now, in euros. */
const request = { name: `Acme "deal" \\ 東京`, offerType: 'PRIVATE' as const, productID: 'prod-1', buyerID: 'buyer-1', expireTime: '2027-03-31T23:59:59.000Z', info: { currency: 'EUR' }, metaInfo: { crmBDealId: '3141' }, lines: [{ dimensionKey: 'seats', quantity: 40, unitPrice: 36 }] };
/** The draft as sent at once before the change: 10 seats. */
const sent: Offer = { id: 'off-1', lastUpdateTime: '2026-05-01T10:00:00.000Z', status: 'PENDING_CREATE', name: request.name, offerType: 'PRIVATE', productID: 'prod-1', buyerID: 'buyer-1', expireTime: request.expireTime, info: { currency: 'EUR', commits: [{ key: 'seats', quantity: 10, price: 36 }] }, metaInfo: { crmBDealId: '3141' } } as Offer;

function stub() {
  const calls: [string, unknown?][] = [];
  const offers = {
    get: async () => (calls.push(['get']), sent),
    updateDraft: async (_org: string, _id: string, patch: Partial<Offer>) => (calls.push(['updateDraft', patch]), { ...sent, ...patch, info: { ...sent.info, ...patch.info } }),
  };
  const products = { get: async () => (calls.push(['product']), product) };
  return { commerce: { offers, products } as unknown as CommerceClient, calls };
}

describe('the draft flow\'s next step without an approval rule', () => {
  it('a changed line updates the draft sent at once: one read, one update of the commits, nothing published', async () => {
    const { commerce, calls } = stub();
    const result = await opportunityDraftOfferFlow.target.advance!(commerce, 'org-1', 'off-1', request as never);
    expect(calls).toEqual([['get'], ['product'], ['updateDraft', { info: { commits: [{ key: 'seats', quantity: 40, price: 36 }] } }]]);
    expect(result).toMatchObject({ made: { id: 'off-1', info: { commits: [{ key: 'seats', quantity: 40, price: 36 }] }, audit: [{ action: 'offer-updated', detail: { offerId: 'off-1', fields: ['info'] } }] } });
  });

  it('a request that agrees with the draft calls nothing more than the read', async () => {
    const { commerce, calls } = stub();
    const same = { ...request, lines: [{ dimensionKey: 'seats', quantity: 10, unitPrice: 36 }] };
    expect(await opportunityDraftOfferFlow.target.advance!(commerce, 'org-1', 'off-1', same as never)).toEqual({ unchanged: true });
    expect(calls.map(([name]) => name)).toEqual(['get', 'product']);
  });
});
