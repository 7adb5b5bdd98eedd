// The commerce sandbox's marketplace A renewals (assumption A15), over plain HTTP: no draft renewal offer
// (404) until one is made, the draft as an offer and its new price, an accepted renewal's new entitlement
// on the renewal offer with the chain pointing back, and an entitlement that ends without one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createCommerceClient } from '../../commerce/index.ts';
import { commerceDump } from '../support/sync-harness.ts';

describe('commerce sandbox: renewals', () => {
  let sandbox: CommerceSandbox;
  let api: ReturnType<typeof createCommerceClient>;
  const org = () => sandbox.organizationId;
  const draftOffer = (entitlementId: string) => api.call('GET /org/{orgId}/entitlement/{entitlementId}/renewal/draftOffer', { orgId: org(), entitlementId });
  const renew = async (body: unknown) => {
    const answer = await fetch(`${sandbox.apiUrl}/_sandbox/renewals`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: answer.status, body: (await answer.json()) as { entitlementId: string; action: string; offerId?: string; renewalEntitlementId?: string } };
  };

  beforeAll(async () => {
    sandbox = await startCommerceSandbox({ entitlements: 40, seed: 77 });
    api = createCommerceClient({ baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, retries: 0 });
  });
  afterAll(() => sandbox?.stop());

  it('answers 404 while an entitlement has no draft, then the draft as an offer, repriced on the next step', async () => {
    await expect(draftOffer('ent-000001')).rejects.toMatchObject({ status: 404 });
    await expect(draftOffer('ent-999999')).rejects.toMatchObject({ status: 404 });
    const drafted = await renew({ entitlementId: 'ent-000001', action: 'draft' });
    expect(drafted).toMatchObject({ status: 200, body: { entitlementId: 'ent-000001', action: 'drafted' } });
    const draft = (await draftOffer('ent-000001')) as any;
    expect(draft).toMatchObject({ id: drafted.body.offerId, status: 'PENDING_ACCEPTANCE', buyerID: 'buyer-000001', partner: 'cloudA', metaInfo: { isRenewalOffer: true } });
    expect(draft.info.commitAmount).toBeGreaterThan(0);
    expect(draft.info.privateOfferUrl).toContain(draft.id);
    // Not an offer of the list while it is a draft.
    expect((await commerceDump(sandbox, 'offers')).some((offer) => offer.id === draft.id)).toBe(false);
    expect(await renew({ entitlementId: 'ent-000001', action: 'draft' })).toMatchObject({ body: { action: 'repriced', offerId: draft.id } });
    const repriced = (await draftOffer('ent-000001')) as any;
    expect(repriced.info.commitAmount).toBeCloseTo(Math.round(draft.info.commitAmount * 1.02 * 100) / 100, 2);
    expect(Date.parse(repriced.lastUpdateTime)).toBeGreaterThanOrEqual(Date.parse(draft.lastUpdateTime));
  });

  it('accepts: the draft becomes an ACCEPTED offer, a new entitlement arrives on it, the old agreement names it', async () => {
    const { id: offerId } = (await draftOffer('ent-000001')) as any;
    const accepted = await renew({ entitlementId: 'ent-000001', action: 'accept' });
    expect(accepted).toMatchObject({ status: 200, body: { action: 'accepted', offerId } });
    await expect(draftOffer('ent-000001')).rejects.toMatchObject({ status: 404 });
    const entitlements = await commerceDump(sandbox, 'entitlements');
    const old = entitlements.find((e) => e.id === 'ent-000001');
    const renewed = entitlements.find((e) => e.id === accepted.body.renewalEntitlementId);
    expect((await commerceDump(sandbox, 'offers')).find((offer) => offer.id === offerId)).toMatchObject({ status: 'ACCEPTED' });
    expect(renewed).toMatchObject({ offerID: offerId, buyerID: 'buyer-000001', status: 'ACTIVE', startTime: old.endTime });
    expect(Date.parse(renewed.endTime) - Date.parse(old.endTime)).toBe(365 * 86_400_000);
    expect(old.info.cloudAAgreement).toMatchObject({ status: 'RENEWED', endTimeBehavior: { renewalSummary: { offerId } } });
    expect(renewed.info.cloudAAgreement.initialAgreementId).toBe(old.info.cloudAAgreement.initialAgreementId ?? old.info.cloudAAgreement.agreementId);
    // Found by the renewal offer, as the client looks for it.
    const found = await api.entitlements.query(org(), { q: `(eq offerID "${offerId}")` }).next();
    expect(found.value!.records.map((e: any) => e.id)).toEqual([renewed.id]);
    expect(await renew({ entitlementId: 'ent-000001', action: 'accept' })).toMatchObject({ status: 400 });
  });

  it('lapses: EXPIRED, ended now, its draft gone', async () => {
    await renew({ entitlementId: 'ent-000034', action: 'draft' });
    const before = Date.now();
    expect(await renew({ entitlementId: 'ent-000034', action: 'lapse' })).toMatchObject({ status: 200, body: { action: 'lapsed' } });
    const lapsed = (await commerceDump(sandbox, 'entitlements')).find((e) => e.id === 'ent-000034');
    expect(lapsed.status).toBe('EXPIRED');
    expect(Date.parse(lapsed.endTime)).toBeGreaterThanOrEqual(before - 1000);
    await expect(draftOffer('ent-000034')).rejects.toMatchObject({ status: 404 });
  });

  it('makes renewals happen as change kinds asked for by name: a draft for an entitlement within 180 days of its end, its acceptance', async () => {
    const fresh = await startCommerceSandbox({ entitlements: 40, seed: 77 });
    const changes = async (kind: string): Promise<any[]> => ((await (await fetch(`${fresh.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: [kind] }) })).json()) as any).changes;
    try {
      // Seed 77: ent-000001 and ent-000034 are the marketplace A entitlements ACTIVE within 180 days of their end.
      const [drafted] = await changes('renewalDraft');
      expect(drafted).toMatchObject({ entityType: 'ENTITLEMENT', action: 'RENEWAL_DRAFTED' });
      expect(['ent-000001', 'ent-000034']).toContain(drafted.id);
      const [accepted] = await changes('renewalAccepted');
      expect(accepted).toMatchObject({ id: drafted.id, action: 'RENEWAL_ACCEPTED' });
      expect((await commerceDump(fresh, 'entitlements')).filter((e) => e.info?.cloudAAgreement?.endTimeBehavior?.renewalSummary?.offerId).map((e) => e.id)).toEqual([drafted.id]);
    } finally {
      await fresh.stop();
    }
  });

  it('a kind no entitlement suits happens not at all', async () => {
    const answer = await fetch(`${sandbox.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: ['renewalAccepted'] }) });
    // Here every marketplace A entitlement near its end was renewed or has ended: nothing to accept.
    expect(((await answer.json()) as any).changes).toEqual([]);
  });
});
