// Creates whose answer is lost (issue #10): the handler ran, but the caller sees a cut reply
// (`truncatedRate`) or a 500 (`rate500After`). The record exists exactly once and is found by the CRM id
// it carries, which is how a client decides not to create it again. A 500 before the handler
// (`rate500`) creates nothing: the contrast the client must not confuse.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';
import { waitFor } from '../support/start-process.ts';

const REFERRAL_CREATE = 'POST /org/{orgId}/cosell/referral';
const BATCH_CREATE = 'POST /org/{orgId}/cosell/referral/batchCreate';
const DRAFT_OFFER = 'POST /org/{orgId}/draftOffer';

const clock = manualClock('2026-05-01T00:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let buyerId: string;
let productId: string;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 3, entitlements: 60, now: clock.now });
  probe = probeSandbox(sandbox);
  buyerId = (await probe.records('buyers'))[0].id;
  productId = (await probe.records('products'))[0].id;
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await probe.control('DELETE', '/faults');
});

/** A POST whose reply is read to the end: resolves with status and JSON, or rejects when the reply is cut. */
async function post(path: string, body: unknown) {
  const response = await fetch(`${sandbox.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await probe.token()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) };
}

const referralsWith = async (crmAOpportunityId: string) => (await probe.api('/org/org-1/cosell/referral', { query: { crmAOpportunityId } })).json as any[];
const offersWith = async (crmAOpportunityId: string) => (await probe.api('/org/org-1/offer', { query: { crmAOpportunityId } })).json as any[];
const referral = (crmAOpportunityId: string) => ({ name: `Opportunity ${crmAOpportunityId}`, partner: 'cloudA', buyerID: buyerId, dealValue: 1000, crmAOpportunityId });

describe('commerce sandbox: a create whose reply is cut (truncatedRate)', () => {
  it('creates the referral once; it is found by its crmAOpportunityId', async () => {
    const before = (await probe.records('referrals')).length;
    await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, truncatedRate: 1 });
    await expect(post('/org/org-1/cosell/referral', referral('006TRUNCATED000001'))).rejects.toThrow();
    await probe.control('DELETE', '/faults');
    const found = await referralsWith('006TRUNCATED000001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ ...referral('006TRUNCATED000001'), status: 'DRAFT', creationTime: clock.iso() });
    expect((await probe.records('referrals')).length).toBe(before + 1);
  });

  it('creates every valid item of a batch once; each is found by its crmAOpportunityId', async () => {
    const before = (await probe.records('referrals')).length;
    await probe.control('POST', '/faults', { operation: BATCH_CREATE, truncatedRate: 1 });
    await expect(post('/org/org-1/cosell/referral/batchCreate', { referrals: [referral('006BATCHCUT0000001'), referral('006BATCHCUT0000002'), { name: 'no buyer' }] })).rejects.toThrow();
    await probe.control('DELETE', '/faults');
    expect(await referralsWith('006BATCHCUT0000001')).toHaveLength(1);
    expect(await referralsWith('006BATCHCUT0000002')).toHaveLength(1);
    expect((await probe.records('referrals')).length).toBe(before + 2);
  });

  it('creates the draft offer once, carrying its crmAOpportunityId', async () => {
    const before = (await probe.records('offers')).length;
    await probe.control('POST', '/faults', { operation: DRAFT_OFFER, truncatedRate: 1 });
    await expect(post('/org/org-1/draftOffer', { name: 'Cut draft', productID: productId, metaInfo: { crmAOpportunityId: '006DRAFTCUT0000001' } })).rejects.toThrow();
    await probe.control('DELETE', '/faults');
    const found = await offersWith('006DRAFTCUT0000001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ name: 'Cut draft', status: 'PENDING_CREATE', metaInfo: { crmAOpportunityId: '006DRAFTCUT0000001' } });
    expect((await probe.records('offers')).length).toBe(before + 1);
  });
});

describe('commerce sandbox: a 500 after the create ran (rate500After)', () => {
  it('answers 500 in the contract\'s error shape while the referral, its event and the draft offer exist once', async () => {
    const events = (await probe.records('notificationEvents')).length;
    await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, rate500After: 1 });
    const answered = await post('/org/org-1/cosell/referral', referral('006AFTER5000000001'));
    expect(answered.status).toBe(500);
    expect(answered.json).toEqual({ code: 'INTERNAL', message: expect.stringContaining('internal server error') });
    const found = await referralsWith('006AFTER5000000001');
    expect(found).toHaveLength(1);
    const newEvents = (await probe.records('notificationEvents')).slice(events);
    expect(newEvents.map((e) => [e.entityType, e.entityID, e.action])).toEqual([['REFERRAL', found[0].id, 'CREATED']]);

    await probe.control('POST', '/faults', { operation: DRAFT_OFFER, rate500After: 1 });
    expect((await post('/org/org-1/draftOffer', { name: 'After 500', productID: productId, metaInfo: { crmAOpportunityId: '006AFTER5000000002' } })).status).toBe(500);
    expect(await offersWith('006AFTER5000000002')).toHaveLength(1);
  });

  it('never spoils a failed call: a refused create stays a 400 and creates nothing', async () => {
    await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, rate500After: 1 });
    const refused = await post('/org/org-1/cosell/referral', { ...referral('006AFTER5000000003'), partner: 'cloudZ' });
    expect(refused.status).toBe(400);
    expect(await referralsWith('006AFTER5000000003')).toEqual([]);
  });

  it('differs from rate500, which answers before the handler and creates nothing', async () => {
    await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, rate500: 1 });
    expect((await post('/org/org-1/cosell/referral', referral('006BEFORE500000001'))).status).toBe(500);
    expect(await referralsWith('006BEFORE500000001')).toEqual([]);
  });

  it('is a fraction like the other rates, listed with the rule, and refused out of range', async () => {
    const set = await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, rate500After: 0.25 });
    expect(set.json[REFERRAL_CREATE]).toMatchObject({ rate500After: 0.25, rate500: 0 });
    const bad = await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, rate500After: 1.5 });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('rate500After must be a number from 0 to 1');
  });
});

describe('commerce sandbox: the answer lost at once, the create committed later (lateCommitRate, issue #24 item 6)', () => {
  /** Polls until `check` holds (no fixed sleep decides anything): the late commit has no answer to wait for. */
  const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> =>
    waitFor('the late commit to land', async () => {
      const value = await read();
      return check(value) ? value : undefined;
    }, 10_000, 25);

  it('drops the connection, finds nothing right after, then the referral exists once', async () => {
    await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, lateCommitRate: 1, lateCommitMs: 400 });
    await expect(post('/org/org-1/cosell/referral', referral('006LATECOMMIT00001'))).rejects.toThrow();
    // A client looking at once (as a retry a second later might) sees nothing yet.
    expect(await referralsWith('006LATECOMMIT00001')).toEqual([]);
    await probe.control('DELETE', '/faults');
    const found = await eventually(() => referralsWith('006LATECOMMIT00001'), (rows) => rows.length > 0);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ ...referral('006LATECOMMIT00001'), status: 'DRAFT' });
    expect((await probe.control('GET', '/late-commits')).json).toMatchObject({ pending: 0 });
  });

  it('commits every valid item of a batch later', async () => {
    await probe.control('POST', '/faults', { operation: BATCH_CREATE, lateCommitRate: 1, lateCommitMs: 200 });
    await expect(post('/org/org-1/cosell/referral/batchCreate', { referrals: [referral('006LATEBATCH000001'), referral('006LATEBATCH000002')] })).rejects.toThrow();
    expect(await referralsWith('006LATEBATCH000001')).toEqual([]);
    await eventually(() => referralsWith('006LATEBATCH000002'), (rows) => rows.length === 1);
    expect(await referralsWith('006LATEBATCH000001')).toHaveLength(1);
  });

  it('is listed with the rule and refused out of range', async () => {
    const set = await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, lateCommitRate: 0.5, lateCommitMs: 2500 });
    expect(set.json[REFERRAL_CREATE]).toMatchObject({ lateCommitRate: 0.5, lateCommitMs: 2500, rate500After: 0 });
    const bad = await probe.control('POST', '/faults', { operation: REFERRAL_CREATE, lateCommitRate: 1, lateCommitMs: 200_000 });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('lateCommitMs must be a number from 0 to 120000');
  });
});
