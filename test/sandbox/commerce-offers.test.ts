// Offers in the commerce sandbox: the list filters of §4.2 and its 405, get by id and external id,
// create with 60-second dedup (§8, A9), draftOffer, cancel and extend with the statuses of §3, soft
// delete and metaInfo merge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let offers: any[];

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
const listIds = async (query: Record<string, string>) => {
  const response = await probe.api('/org/org-1/offer', { query });
  expect(response.status, response.text).toBe(200);
  return ids(response.json);
};
const firstWith = (predicate: (offer: any) => boolean) => {
  const offer = offers.find(predicate);
  if (!offer) throw new Error('the seeded data lacks an offer this test needs');
  return offer;
};

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 5, entitlements: 250, now: clock.now });
  probe = probeSandbox(sandbox);
  offers = await probe.records('offers');
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: list offers', () => {
  it('applies every filter of §4.2 exactly as a plain filter over the records would', async () => {
    const sample = firstWith((o) => o.metaInfo.crmBDealId && o.metaInfo.crmAOpportunityId && o.metaInfo.crmCOpportunityId && o.buyerID && o.contactIds.length > 0);
    const cases: [string, string, (o: any) => boolean][] = [
      ['status', 'ACCEPTED', (o) => o.status === 'ACCEPTED'],
      ['partner', 'cloudB', (o) => o.partner === 'cloudB'],
      ['offerType', 'CPPO_IN', (o) => o.offerType === 'CPPO_IN'],
      ['productId', sample.productID, (o) => o.productID === sample.productID],
      ['buyerId', sample.buyerID, (o) => o.buyerID === sample.buyerID],
      ['crmBDealId', sample.metaInfo.crmBDealId, (o) => o.metaInfo.crmBDealId === sample.metaInfo.crmBDealId],
      ['crmAOpportunityId', sample.metaInfo.crmAOpportunityId, (o) => o.metaInfo.crmAOpportunityId === sample.metaInfo.crmAOpportunityId],
      ['crmCOpportunityId', sample.metaInfo.crmCOpportunityId, (o) => o.metaInfo.crmCOpportunityId === sample.metaInfo.crmCOpportunityId],
      ['contactId', sample.contactIds[0], (o) => o.contactIds.includes(sample.contactIds[0])],
      ['channelType', 'RESALE', (o) => o.channelType === 'RESALE'],
      ['pricingType', 'USAGE', (o) => o.pricingType === 'USAGE'],
      ['productType', 'SAAS', (o) => o.productType === 'SAAS'],
    ];
    for (const [name, value, predicate] of cases) {
      const expected = ids(offers.filter(predicate));
      expect(expected.length, name).toBeGreaterThan(0);
      expect(await listIds({ [name]: value }), name).toEqual(expected);
    }
    expect(await listIds({ crmBDealId: sample.metaInfo.crmBDealId })).toEqual([sample.id]);
    expect(await listIds({ partner: 'cloudA', channelType: 'DIRECT' })).toEqual(ids(offers.filter((o) => o.partner === 'cloudA' && o.channelType === 'DIRECT')));
    expect(await listIds({ crmBDealId: 'no-such-deal' })).toEqual([]);
    // The GUID is matched as stored: lowercased, without braces.
    expect(await listIds({ crmCOpportunityId: `{${sample.metaInfo.crmCOpportunityId.toUpperCase()}}` })).toEqual([]);
  });

  it('answers 405 with Allow for a method the path does not have', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const response = await probe.api('/org/org-1/offer', { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST');
      expect(response.json).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('queries offers with q and s', async () => {
    const response = await probe.api('/org/org-1/offer/query', { query: { q: '(eq offerType "OFFER_SET")', s: '-id', page_size: 1000 } });
    expect(ids(response.json.data)).toEqual(ids(offers.filter((o) => o.offerType === 'OFFER_SET')).reverse());
  });
});

describe('commerce sandbox: get offers', () => {
  it('gets an offer by id, and by an external id that holds slashes', async () => {
    const offer = firstWith((o) => o.partner === 'cloudC' && o.externalID);
    expect(offer.externalID).toContain('/');
    expect((await probe.api(`/org/org-1/offer/${offer.id}`)).json).toEqual(offer);
    expect((await probe.api(`/org/org-1/offerExternalId/${encodeURIComponent(offer.externalID)}`)).json).toEqual(offer);
  });

  it('answers 404 with a plain JSON string for unknown ids and organizations', async () => {
    const missing = await probe.api('/org/org-1/offer/offer-999999');
    expect(missing.status).toBe(404);
    expect(typeof missing.json).toBe('string');
    expect(missing.json).toContain('offer-999999');
    expect((await probe.api('/org/org-1/offerExternalId/nope')).status).toBe(404);
    const otherOrg = await probe.api('/org/org-2/offer');
    expect(otherOrg.status).toBe(404);
    expect(otherOrg.json).toContain('org-2');
  });
});

describe('commerce sandbox: create offers', () => {
  const body = () => ({ name: 'Dedup test offer', productID: offers[0].productID, buyerID: offers[0].buyerID, info: { commitAmount: 1200, currency: 'USD' } });

  it('creates a PENDING_CREATE offer and returns the original response for an identical body within 60 s', async () => {
    const first = await probe.api('/org/org-1/offer', { method: 'POST', body: body() });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ status: 'PENDING_CREATE', productID: offers[0].productID, creationTime: clock.iso(), metaInfo: { createdBySource: 'API' } });
    expect(first.json.externalID).toBeUndefined();

    clock.advance(59);
    // Same body with its keys in another order: the same call.
    const reordered = { info: { currency: 'USD', commitAmount: 1200 }, buyerID: offers[0].buyerID, productID: offers[0].productID, name: 'Dedup test offer' };
    const again = await probe.api('/org/org-1/offer', { method: 'POST', body: reordered });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);

    const different = await probe.api('/org/org-1/offer', { method: 'POST', body: { ...body(), name: 'Another offer' } });
    expect(different.json.id).not.toBe(first.json.id);

    clock.advance(1);
    const later = await probe.api('/org/org-1/offer', { method: 'POST', body: body() });
    expect(later.status).toBe(200);
    expect(later.json.id).not.toBe(first.json.id);

    const all = await probe.records('offers');
    expect(all.filter((o) => o.name === 'Dedup test offer')).toHaveLength(2);
    const events = await probe.api(`/org/org-1/notificationEvent/OFFER/${first.json.id}`);
    expect(events.json.notificationEvents).toMatchObject([{ action: 'CREATED', entityID: first.json.id, timestamp: first.json.creationTime }]);
  });

  it('rejects a create without a name or with an unknown product with a 400 object', async () => {
    const noName = await probe.api('/org/org-1/offer', { method: 'POST', body: { productID: offers[0].productID } });
    expect(noName.status).toBe(400);
    expect(noName.json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'name' });
    const badProduct = await probe.api('/org/org-1/offer', { method: 'POST', body: { name: 'x', productID: 'prod-404' } });
    expect(badProduct.json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'productID' });
    const notJson = await fetch(`${sandbox.apiUrl}/org/org-1/offer`, { method: 'POST', headers: { authorization: `Bearer ${await probe.token()}`, 'content-type': 'application/json' }, body: '{"name":' });
    expect(notJson.status).toBe(400);
  });

  it('creates and updates drafts with draftOffer, only while PENDING_CREATE', async () => {
    const created = await probe.api('/org/org-1/draftOffer', { method: 'POST', body: { name: 'Draft', productID: offers[1].productID, info: { commitAmount: 10 } } });
    expect(created.json).toMatchObject({ status: 'PENDING_CREATE', metaInfo: { createdBySource: 'API' } });
    const updated = await probe.api('/org/org-1/draftOffer', { method: 'POST', body: { id: created.json.id, name: 'Draft v2', info: { currency: 'EUR' }, status: 'ACTIVE' } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ id: created.json.id, name: 'Draft v2', status: 'PENDING_CREATE', info: { commitAmount: 10, currency: 'EUR' } });
    const accepted = firstWith((o) => o.status === 'ACCEPTED');
    const refused = await probe.api('/org/org-1/draftOffer', { method: 'POST', body: { id: accepted.id, name: 'nope' } });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'FAILED_PRECONDITION' });
  });
});

describe('commerce sandbox: cancel, extend and delete', () => {
  const STATUSES = ['PENDING_CREATE', 'PENDING_ACCEPTANCE', 'PENDING_CANCEL', 'ACTIVE', 'USED', 'ACCEPTED', 'EXPIRED', 'UPDATE_FAILED', 'DELETED'];
  const CANCEL_OK = ['PENDING_ACCEPTANCE', 'PENDING_CANCEL', 'ACTIVE', 'USED'];
  const EXTEND_OK = ['PENDING_ACCEPTANCE', 'EXPIRED', 'ACCEPTED', 'UPDATE_FAILED'];
  /** The n-th generated offer in a status, distinct per test so one test's writes do not feed another. */
  const inStatus = (status: string, n: number) => {
    const matches = offers.filter((o) => o.status === status);
    if (matches.length <= n) throw new Error(`the seeded data has too few ${status} offers`);
    return matches[n];
  };

  it.each(STATUSES)('cancel from %s follows §3.1', async (status) => {
    const offer = inStatus(status, 0);
    const response = await probe.api(`/org/org-1/offer/${offer.id}/cancel`, { method: 'POST', body: {} });
    if (CANCEL_OK.includes(status)) {
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ id: offer.id, status: 'PENDING_CANCEL', lastUpdateTime: clock.iso() });
    } else {
      expect(response.status).toBe(409);
      expect(response.json).toMatchObject({ code: 'FAILED_PRECONDITION', status });
      expect(response.json.message).toContain(status);
      expect((await probe.api(`/org/org-1/offer/${offer.id}`)).json.status).toBe(status);
    }
  });

  it.each(STATUSES)('extendExpiryDate from %s follows §3.2', async (status) => {
    const offer = inStatus(status, 1);
    const expireTime = '2026-06-30T00:00:00.000Z';
    const response = await probe.api(`/org/org-1/offer/${offer.id}/extendExpiryDate`, { method: 'POST', body: { expireTime } });
    if (EXTEND_OK.includes(status)) {
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ status: 'PENDING_ACCEPTANCE', expireTime });
    } else {
      expect(response.status).toBe(409);
      expect(response.json).toMatchObject({ code: 'FAILED_PRECONDITION' });
    }
  });

  it('rejects an expireTime in the past or not a date-time', async () => {
    const offer = inStatus('EXPIRED', 2);
    expect((await probe.api(`/org/org-1/offer/${offer.id}/extendExpiryDate`, { method: 'POST', body: { expireTime: '2020-01-01T00:00:00Z' } })).status).toBe(400);
    expect((await probe.api(`/org/org-1/offer/${offer.id}/extendExpiryDate`, { method: 'POST', body: { expireTime: 'next week' } })).json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'expireTime' });
  });

  it('deletes softly: the offer stays readable and listed as DELETED', async () => {
    const offer = inStatus('ACTIVE', 3);
    clock.advance(5);
    const deleted = await probe.api(`/org/org-1/offer/${offer.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ id: offer.id, status: 'DELETED', lastUpdateTime: clock.iso() });
    expect((await probe.api(`/org/org-1/offer/${offer.id}`)).json.status).toBe('DELETED');
    expect(await listIds({ status: 'DELETED' })).toContain(offer.id);
    const events = (await probe.api(`/org/org-1/notificationEvent/OFFER/${offer.id}`)).json.notificationEvents;
    expect(events.at(-1)).toMatchObject({ action: 'DELETED', timestamp: clock.iso() });
  });
});

describe('commerce sandbox: offer metaInfo', () => {
  it('merges a patch (null removes), keeps server-owned fields, bumps lastUpdateTime, and the list filter sees it', async () => {
    const offer = offers.find((o) => !o.metaInfo.crmBDealId && o.metaInfo.createdByEmail)!;
    clock.advance(10);
    const response = await probe.api(`/org/org-1/offer/${offer.id}/metaInfo`, {
      method: 'PATCH',
      body: { crmBDealId: '987654321', customMetaInfo: { tier: 'gold' }, createdBySource: null, createdByEmail: 'mallory@example.com' },
    });
    expect(response.status).toBe(200);
    expect(response.json.lastUpdateTime).toBe(clock.iso());
    expect(response.json.metaInfo).toMatchObject({ crmBDealId: '987654321', customMetaInfo: { ...offer.metaInfo.customMetaInfo, tier: 'gold' }, createdByEmail: offer.metaInfo.createdByEmail });
    expect('createdBySource' in response.json.metaInfo).toBe(false);
    expect(await listIds({ crmBDealId: '987654321' })).toEqual([offer.id]);
    expect((await probe.api(`/org/org-1/offer/${offer.id}/metaInfo`, { method: 'PATCH', body: ['not', 'an', 'object'] })).status).toBe(400);
  });
});
