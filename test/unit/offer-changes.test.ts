// The commerce side of a private offer from the CRM (flows/offer-changes.ts), on a stub commerce client
// that records its calls: a draft is held and published in one step when it may go to the buyer; a
// publication refused after the draft was made leaves it made but unsettled (the next read publishes it or
// says why), as does a held draft found by its CRM id; a failure worth retrying fails the step; a request
// without an approval step is sent at once, as drafts always were.
import { describe, expect, it } from 'vitest';
import { CommerceApiError } from '../../commerce/errors.ts';
import type { CommerceClient } from '../../commerce/index.ts';
import type { Offer } from '../../commerce/models.ts';
import { adoptedDraft, advanceDraftOffer, createDraftOffer } from '../../flows/offer-changes.ts';
import { madeHash } from '../../flows/made-extras.ts';

const request = { name: 'Acme', offerType: 'PRIVATE' as const, productID: 'prod-1', buyerID: 'buyer-1', info: { commitAmount: 100, currency: 'USD' }, metaInfo: { crmAOpportunityId: '006A' } };
const held: Offer = { id: 'off-1', lastUpdateTime: '2026-05-01T10:00:00.000Z', status: 'PENDING_CREATE', subStatus: 'DRAFT', ...request };
const published: Offer = { ...held, subStatus: undefined, lastUpdateTime: '2026-05-01T10:00:01.000Z' };

/** A commerce client answering the offer calls from `answers` (a function per call, or an error to throw), recording each. */
function stub(answers: Partial<Record<'draft' | 'publish' | 'get' | 'updateDraft' | 'cancel' | 'extendExpiry', (...args: any[]) => unknown>>) {
  const calls: string[] = [];
  const offers = Object.fromEntries(
    Object.entries(answers).map(([name, answer]) => [
      name,
      async (...args: unknown[]) => {
        calls.push(name === 'draft' ? `draft${(args[2] as { hold?: boolean } | undefined)?.hold ? ' held' : ''}` : name);
        return answer!(...args);
      },
    ]),
  );
  return { commerce: { offers } as unknown as CommerceClient, calls };
}
const refusal = (status: number, message: string) => new CommerceApiError({ status, operation: 'POST /org/{orgId}/offer', body: { message } });

describe('making the draft', () => {
  it('held, then published in the same step when it may go to the buyer, with the audit of both', async () => {
    const { commerce, calls } = stub({ draft: () => held, publish: () => published });
    const result = await createDraftOffer(commerce, 'org-1', { ...request, publish: true, approval: { by: 'Ada' } });
    expect(calls).toEqual(['draft held', 'publish']);
    expect(result).toEqual({ made: { ...published, audit: [{ action: 'offer-approved', by: 'Ada', detail: { offerId: 'off-1' } }, { action: 'offer-published', detail: { offerId: 'off-1' } }] } });
  });

  it('held and left so while not approved; a request without an approval step goes at once, as before', async () => {
    const waiting = stub({ draft: () => held });
    expect(await createDraftOffer(waiting.commerce, 'org-1', { ...request, publish: false })).toEqual({ made: held });
    expect(waiting.calls).toEqual(['draft held']);
    const before = stub({ draft: () => published });
    expect(await createDraftOffer(before.commerce, 'org-1', request)).toEqual({ made: published });
    expect(before.calls).toEqual(['draft']);
  });

  it('a publication refused after the draft was made: the draft is made but unsettled, so its intent asks again', async () => {
    const { commerce } = stub({ draft: () => held, publish: () => { throw refusal(409, 'a private offer needs a buyer'); } });
    const result = await createDraftOffer(commerce, 'org-1', { ...request, publish: true });
    expect(result).toEqual({ made: { ...held, settled: false } });
    expect(madeHash((result as { made: Offer }).made, 'abc')).toBe('unsettled:abc');
    expect(madeHash(published, 'abc')).toBe('abc');
  });

  it('a publication that fails for a reason worth retrying fails the step; a refused draft is the record\'s refusal', async () => {
    const unavailable = stub({ draft: () => held, publish: () => { throw refusal(503, 'try later'); } });
    await expect(createDraftOffer(unavailable.commerce, 'org-1', { ...request, publish: true })).rejects.toThrow('try later');
    const refused = stub({ draft: () => { throw refusal(400, 'info.currency: must be three capital letters'); } });
    expect(await createDraftOffer(refused.commerce, 'org-1', { ...request, publish: true })).toEqual({ refused: 'info.currency: must be three capital letters (POST /org/{orgId}/offer, HTTP 400)' });
  });

  it('a held draft found by its CRM id is unsettled; a published one is taken as it is', () => {
    expect(adoptedDraft(held)).toEqual({ ...held, settled: false });
    expect(adoptedDraft(published)).toBe(published);
  });
});

describe('the next step of an offer made before', () => {
  it('approved since: published, nothing else sent when the terms agree', async () => {
    const { commerce, calls } = stub({ get: () => held, publish: () => published });
    expect(await advanceDraftOffer(commerce, 'org-1', 'off-1', { ...request, publish: true })).toMatchObject({ made: { id: 'off-1', audit: [{ action: 'offer-published' }] } });
    expect(calls).toEqual(['get', 'publish']);
  });

  it('a repeat after the step was taken finds it done and calls nothing', async () => {
    const { commerce, calls } = stub({ get: () => published });
    expect(await advanceDraftOffer(commerce, 'org-1', 'off-1', { ...request, publish: true })).toEqual({ unchanged: true });
    expect(calls).toEqual(['get']);
  });

  it('a cancel request on an offer already cancelling calls nothing; the commerce side\'s 409 is the record\'s refusal', async () => {
    const cancelling = stub({ get: () => ({ ...published, status: 'PENDING_CANCEL' }) });
    expect(await advanceDraftOffer(cancelling.commerce, 'org-1', 'off-1', { ...request, cancel: true })).toEqual({ unchanged: true });
    const draft = stub({ get: () => held, cancel: () => { throw refusal(409, 'offer off-1 is PENDING_CREATE'); } });
    expect(await advanceDraftOffer(draft.commerce, 'org-1', 'off-1', { ...request, cancel: true })).toEqual({ refused: 'the marketplace refused the change to offer off-1: offer off-1 is PENDING_CREATE (POST /org/{orgId}/offer, HTTP 409)' });
  });
});
