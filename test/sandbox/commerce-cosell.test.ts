// Co-sell both ways in the commerce sandbox (issue #10): the partner's review of a submitted referral
// (A13), the partner's side in the change driver (stage moves, inbound referrals), finding a referral by
// the CRM id it carries, commission actions before and after Won, and validation a salesperson can read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const REFERRALS = '/org/org-1/cosell/referral';
const STAGES = ['Prospect', 'Qualified', 'Technical Validation', 'Business Validation', 'Committed', 'Launched'];

const started: CommerceSandbox[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'commerce-cosell-'));
afterAll(async () => {
  await Promise.all(started.map((sandbox) => sandbox.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: CommerceSandboxOptions = {}) {
  const clock = manualClock('2026-05-01T00:00:00.000Z');
  const sandbox = await startCommerceSandbox({ seed: 9, entitlements: 100, now: clock.now, ...options });
  started.push(sandbox);
  const probe = probeSandbox(sandbox);
  const buyers = await probe.records('buyers');
  const contacts = await probe.records('contacts');
  // A buyer with two contacts, so a referral can name them.
  const buyer = buyers.find((b) => b.status === 'ACTIVE' && contacts.filter((c) => c.buyerID === b.id).length >= 2)!;
  return { sandbox, probe, clock, buyer, buyers, contacts };
}

const draft = (buyerID: string, extra: Record<string, unknown> = {}) => ({ name: 'Joint deal', partner: 'cloudA', buyerID, dealValue: 25_000, ...extra });

async function create(probe: SandboxProbe, body: Record<string, unknown>) {
  const response = await probe.api(REFERRALS, { method: 'POST', body });
  expect(response.status, response.text).toBe(200);
  return response.json;
}

const eventsOf = async (probe: SandboxProbe, id: string) => (await probe.api(`/org/org-1/notificationEvent/REFERRAL/${id}`)).json.notificationEvents as any[];

describe('commerce sandbox: partner review of a submitted referral (A13)', () => {
  let env: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    env = await start();
  });

  it('refuses the seller\'s updates with a 409 until the review ends, then the partner decides once', async () => {
    const { probe, clock, buyer } = env;
    const referral = await create(probe, draft(buyer.id));
    expect(referral.status).toBe('DRAFT');
    expect(referral.partnerReviewEndTime).toBeUndefined();

    clock.advance(5);
    const submitted = await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { status: 'SUBMITTED' } });
    expect(submitted.status).toBe(200);
    const end = new Date(Date.parse(clock.iso()) + 60_000).toISOString();
    expect(submitted.json).toMatchObject({ status: 'SUBMITTED', partnerReviewEndTime: end, lastUpdateTime: clock.iso() });

    clock.advance(10);
    const refused = await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { description: 'more detail' } });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ code: 'FAILED_PRECONDITION', status: 'SUBMITTED', message: `referral ${referral.id} is under partner review until ${end}; updates are accepted again after that` });
    // A2's order: a body that is wrong in itself is a 400 even during the review.
    expect((await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { stage: 'Won' } })).status).toBe(400);
    clock.advance(49.999);
    expect((await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { status: 'DRAFT' } })).status).toBe(409);
    expect((await probe.api(`${REFERRALS}/${referral.id}`)).json).toEqual(submitted.json);
    const eventsDuring = await eventsOf(probe, referral.id);

    clock.advance(0.001); // the review's end
    const decided = (await probe.api(`${REFERRALS}/${referral.id}`)).json;
    expect(['ACCEPTED', 'REJECTED']).toContain(decided.status);
    expect(decided.lastUpdateTime).toBe(clock.iso());
    expect(decided.partnerReviewEndTime).toBeUndefined();
    const { partnerReviewEndTime: _gone, ...rest } = submitted.json;
    expect(decided).toEqual({ ...rest, status: decided.status, lastUpdateTime: clock.iso() });
    // Read again: the decision is one change and one event, not one per look.
    expect((await probe.api(`${REFERRALS}/${referral.id}`)).json).toEqual(decided);
    const events = await eventsOf(probe, referral.id);
    expect(events.slice(eventsDuring.length)).toEqual([
      expect.objectContaining({ action: 'STATUS_CHANGED', entityType: 'REFERRAL', entityStatus: decided.status, timestamp: clock.iso(), info: expect.objectContaining({ previousStatus: 'SUBMITTED' }) }),
    ]);

    const after = await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { description: 'more detail' } });
    expect(after.status).toBe(200);
    expect(after.json.description).toBe('more detail');
  });

  it('starts a review for a referral created SUBMITTED, alone or in a batch, and for a resubmission', async () => {
    const { probe, clock, buyer } = env;
    const single = await create(probe, draft(buyer.id, { status: 'SUBMITTED' }));
    const batch = (await probe.api(`${REFERRALS}/batchCreate`, { method: 'POST', body: { referrals: [draft(buyer.id, { status: 'SUBMITTED' }), draft(buyer.id)] } })).json.results;
    const end = new Date(Date.parse(clock.iso()) + 60_000).toISOString();
    expect(single.partnerReviewEndTime).toBe(end);
    expect(batch[0].referral.partnerReviewEndTime).toBe(end);
    expect(batch[1].referral.partnerReviewEndTime).toBeUndefined();
    for (const id of [single.id, batch[0].referral.id]) expect((await probe.api(`${REFERRALS}/${id}`, { method: 'PATCH', body: { dealValue: 1 } })).status).toBe(409);
    expect((await probe.api(`${REFERRALS}/${batch[1].referral.id}`, { method: 'PATCH', body: { dealValue: 1 } })).status).toBe(200);

    clock.advance(60);
    const decided = (await probe.api(`${REFERRALS}/${single.id}`)).json;
    expect(decided.status).not.toBe('SUBMITTED');
    // The seller answers a rejection by submitting again: a new review.
    const again = await probe.api(`${REFERRALS}/${single.id}`, { method: 'PATCH', body: { status: 'SUBMITTED', description: 'resubmitted' } });
    expect(again.json.partnerReviewEndTime).toBe(new Date(Date.parse(clock.iso()) + 60_000).toISOString());
    expect((await probe.api(`${REFERRALS}/${single.id}`, { method: 'PATCH', body: { dealValue: 2 } })).status).toBe(409);
  });

  it('decides from the seed: the same referrals get the same answers, mostly ACCEPTED and sometimes REJECTED', async () => {
    const outcomes = async () => {
      const { probe, clock, buyer } = await start();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await create(probe, draft(buyer.id, { name: `Deal ${i}`, status: 'SUBMITTED' }))).id);
      clock.advance(61);
      const all = (await probe.api(REFERRALS, { query: { direction: 'OUTBOUND' } })).json as any[];
      return ids.map((id) => all.find((r) => r.id === id).status as string);
    };
    const first = await outcomes();
    expect(await outcomes()).toEqual(first);
    const accepted = first.filter((s) => s === 'ACCEPTED').length;
    const rejected = first.filter((s) => s === 'REJECTED').length;
    expect(accepted + rejected).toBe(30);
    expect(rejected).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(rejected);
  });

  it('is decided by the timer when the review time passes, without any call to the API', async () => {
    const sandbox = await startCommerceSandbox({ seed: 9, entitlements: 40, partnerReviewSeconds: 0.3 });
    started.push(sandbox);
    const probe = probeSandbox(sandbox);
    const buyer = (await probe.records('buyers'))[0];
    const referral = await create(probe, draft(buyer.id, { status: 'SUBMITTED' }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const decided = (await probe.records('referrals')).find((r) => r.id === referral.id);
    expect(['ACCEPTED', 'REJECTED']).toContain(decided.status);
    // Decided by a tick (every 100 ms) soon after the review's end, not by this read, 1.2 s after it.
    const late = Date.parse(decided.lastUpdateTime) - Date.parse(referral.partnerReviewEndTime);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(800);
  });

  it('takes its length from the option and POST /_sandbox/cosell/review; 0 means no review', async () => {
    const { probe, clock, buyer } = await start({ partnerReviewSeconds: 5 });
    expect((await probe.control('GET', '/cosell/review')).json).toEqual({ seconds: 5 });
    expect((await probe.control('GET', '')).json.partnerReviewSeconds).toBe(5);
    const short = await create(probe, draft(buyer.id, { status: 'SUBMITTED' }));
    expect(short.partnerReviewEndTime).toBe(new Date(Date.parse(clock.iso()) + 5_000).toISOString());

    expect((await probe.control('POST', '/cosell/review', { seconds: 0 })).json).toEqual({ seconds: 0 });
    const unreviewed = await create(probe, draft(buyer.id, { status: 'SUBMITTED' }));
    expect(unreviewed.partnerReviewEndTime).toBeUndefined();
    const patched = await probe.api(`${REFERRALS}/${unreviewed.id}`, { method: 'PATCH', body: { dealValue: 7 } });
    expect(patched.json).toMatchObject({ status: 'SUBMITTED', dealValue: 7 });
    // A review already running keeps its end.
    expect((await probe.api(`${REFERRALS}/${short.id}`, { method: 'PATCH', body: { dealValue: 7 } })).status).toBe(409);
    clock.advance(1800); // long after any review would have ended: nobody decides
    expect((await probe.api(`${REFERRALS}/${unreviewed.id}`)).json.status).toBe('SUBMITTED');

    for (const bad of [{ seconds: -1 }, { seconds: 'soon' }, {}]) {
      const refused = await probe.control('POST', '/cosell/review', bad);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'seconds' });
    }
    await expect(startCommerceSandbox({ partnerReviewSeconds: -5 })).rejects.toThrow(/partnerReviewSeconds/);
  });

  it('keeps a running review across a restart on the same journal', async () => {
    const journalPath = path.join(dir, 'review.jsonl');
    const first = await start({ journalPath });
    const referral = await create(first.probe, draft(first.buyer.id, { status: 'SUBMITTED' }));
    await first.sandbox.stop();
    const clock = manualClock(first.clock.iso());
    const second = await startCommerceSandbox({ seed: 9, entitlements: 100, now: clock.now, journalPath });
    started.push(second);
    const probe = probeSandbox(second);
    expect((await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { dealValue: 3 } })).status).toBe(409);
    clock.advance(60);
    const decided = (await probe.api(`${REFERRALS}/${referral.id}`)).json;
    expect(['ACCEPTED', 'REJECTED']).toContain(decided.status);
  });
});

describe('commerce sandbox: the partner in the change driver', () => {
  it('moves ACCEPTED referrals one stage at a time to Launched, or to Closed Lost, closing them there', async () => {
    const { probe, clock, buyer } = await start();
    for (let i = 0; i < 6; i++) await create(probe, draft(buyer.id, { name: `Accepted ${i}`, status: 'ACCEPTED' }));
    let before = new Map((await probe.records('referrals')).map((r) => [r.id, r]));
    const eventCount = (await probe.records('notificationEvents')).length;
    const moves: string[] = [];
    for (let step = 0; step < 200; step++) {
      clock.advance(1);
      const { changes } = (await probe.control('POST', '/changes', { count: 1, kinds: ['partnerStageMove'] })).json;
      if (changes.length === 0) break; // no ACCEPTED referral is left to move
      const [change] = changes;
      const after = new Map((await probe.records('referrals')).map((r) => [r.id, r]));
      const was = before.get(change.id)!;
      const now = after.get(change.id)!;
      expect(was.status).toBe('ACCEPTED');
      const next = STAGES[STAGES.indexOf(was.stage) + 1];
      expect([next, 'Closed Lost']).toContain(now.stage);
      const closes = now.stage === 'Launched' || now.stage === 'Closed Lost';
      expect(now).toEqual({ ...was, stage: now.stage, status: closes ? 'CLOSED' : 'ACCEPTED', lastUpdateTime: clock.iso() });
      expect(change).toMatchObject({ entityType: 'REFERRAL', action: closes ? 'STATUS_CHANGED' : 'UPDATED', lastUpdateTime: clock.iso() });
      for (const [id, row] of after) if (id !== change.id) expect(row).toEqual(before.get(id));
      moves.push(`${was.stage} -> ${now.stage}`);
      before = after;
    }
    expect([...before.values()].filter((r) => r.status === 'ACCEPTED')).toEqual([]);
    expect(moves).toContain('Committed -> Launched');
    expect(moves.some((move) => move.endsWith('Closed Lost'))).toBe(true);
    // One REFERRAL event per move, naming it.
    const events = (await probe.records('notificationEvents')).slice(eventCount);
    expect(events).toHaveLength(moves.length);
    expect(events.every((e) => e.entityType === 'REFERRAL')).toBe(true);
  });

  it('brings inbound referrals on existing buyers, naming one or two of the buyer\'s contacts and no CRM id', async () => {
    const { probe, clock, buyers, contacts } = await start();
    clock.advance(30);
    const eventsBefore = (await probe.records('notificationEvents')).length;
    const { changes } = (await probe.control('POST', '/changes', { count: 12, kinds: ['inboundReferral'] })).json;
    expect(changes).toHaveLength(12);
    const referrals = new Map((await probe.records('referrals')).map((r) => [r.id, r]));
    const sizes = new Set<number>();
    for (const change of changes) {
      expect(change).toMatchObject({ entityType: 'REFERRAL', action: 'CREATED', lastUpdateTime: clock.iso() });
      const referral = referrals.get(change.id)!;
      const buyer = buyers.find((b) => b.id === referral.buyerID);
      expect(buyer?.status).toBe('ACTIVE');
      expect(referral).toMatchObject({ direction: 'INBOUND', partner: buyer.partner, creationTime: clock.iso(), lastUpdateTime: clock.iso() });
      expect(referral.crmAOpportunityId ?? referral.crmBDealId ?? referral.crmCOpportunityId).toBeUndefined();
      expect(new Set(referral.contactIds).size).toBe(referral.contactIds.length);
      sizes.add(referral.contactIds.length);
      for (const id of referral.contactIds) expect(contacts.find((c) => c.id === id)?.buyerID).toBe(buyer.id);
      // What the partner sent is a referral the service itself would accept.
      const { id: _id, organizationID: _org, creationTime: _c, lastUpdateTime: _l, ...fields } = referral;
      expect((await probe.api(`${REFERRALS}/validate`, { method: 'POST', body: fields })).json).toEqual({ valid: true, errors: [] });
    }
    expect([...sizes].sort()).toEqual([1, 2]);
    const events = (await probe.records('notificationEvents')).slice(eventsBefore);
    expect(events.map((e) => [e.eventID, e.entityType, e.entityID, e.action])).toEqual(changes.map((c: any) => [c.eventID, 'REFERRAL', c.id, 'CREATED']));
    const listed = (await probe.api(REFERRALS, { query: { direction: 'INBOUND', q: `(ge lastUpdateTime "${clock.iso()}")` } })).json;
    expect(listed.map((r: any) => r.id).sort()).toEqual(changes.map((c: any) => c.id).sort());
  });
});

describe('commerce sandbox: a referral or offer found by the CRM id it carries (A5)', () => {
  it('lists referrals by crmAOpportunityId, crmBDealId and crmCOpportunityId exactly', async () => {
    const { probe, buyer } = await start();
    const a = await create(probe, draft(buyer.id, { crmAOpportunityId: '006AAAAAAAAAAAAAAA' }));
    await create(probe, draft(buyer.id, { crmAOpportunityId: '006AAAAAAAAAAAAAAAB' })); // a longer id sharing the prefix
    await create(probe, draft(buyer.id, { crmAOpportunityId: '006aaaaaaaaaaaaaaa' })); // another case
    const b = await create(probe, draft(buyer.id, { crmBDealId: 'deal-77' }));
    const c = await create(probe, draft(buyer.id, { crmCOpportunityId: '0f8fad5b-d9cb-469f-a165-70867728950e' }));
    const ids = async (query: Record<string, string>) => (await probe.api(REFERRALS, { query })).json.map((r: any) => r.id);
    expect(await ids({ crmAOpportunityId: '006AAAAAAAAAAAAAAA' })).toEqual([a.id]);
    expect(await ids({ crmBDealId: 'deal-77' })).toEqual([b.id]);
    expect(await ids({ crmCOpportunityId: '0f8fad5b-d9cb-469f-a165-70867728950e' })).toEqual([c.id]);
    expect(await ids({ crmAOpportunityId: 'no-such-opportunity' })).toEqual([]);
    // Generated referrals carry CRM ids too: every one is found by its own.
    const all = await probe.records('referrals');
    for (const referral of all.filter((r) => r.crmAOpportunityId).slice(0, 5)) {
      expect(await ids({ crmAOpportunityId: referral.crmAOpportunityId })).toEqual(all.filter((r) => r.crmAOpportunityId === referral.crmAOpportunityId).map((r) => r.id));
    }
  });

  it('creates a draft offer keeping metaInfo.crmAOpportunityId, answers with it and lists it by that id', async () => {
    const { probe } = await start();
    const product = (await probe.records('products'))[0];
    const created = await probe.api('/org/org-1/draftOffer', { method: 'POST', body: { name: 'From opportunity', productID: product.id, metaInfo: { crmAOpportunityId: '006DRAFTOFFER00001' } } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ status: 'PENDING_CREATE', metaInfo: { crmAOpportunityId: '006DRAFTOFFER00001', createdBySource: 'API' } });
    const listed = (await probe.api('/org/org-1/offer', { query: { crmAOpportunityId: '006DRAFTOFFER00001' } })).json;
    expect(listed).toEqual([created.json]);
  });
});

describe('commerce sandbox: commission actions (§3.6)', () => {
  it('refuses commission-update and commission actions before the deal is won, and records them after', async () => {
    const { probe, clock, buyer } = await start({ partnerReviewSeconds: 0 });
    const referral = await create(probe, draft(buyer.id, { status: 'ACCEPTED', stage: 'Committed' }));
    const eventsBefore = (await eventsOf(probe, referral.id)).length;
    const update = await probe.api(`${REFERRALS}/${referral.id}/commission-update`, { method: 'POST', body: { rate: 0.12 } });
    expect(update.status).toBe(409);
    expect(update.json).toEqual({ code: 'FAILED_PRECONDITION', status: 'ACCEPTED', message: `a commission-terms update is accepted only once the deal is won (stage Launched); referral ${referral.id} is at stage Committed` });
    const action = await probe.api(`${REFERRALS}/${referral.id}/commission`, { method: 'PATCH', body: { action: 'ADVANCE' } });
    expect(action.status).toBe(409);
    expect(action.json.message).toContain('only once the deal is won');
    expect((await probe.api(`${REFERRALS}/${referral.id}`)).json).toEqual(referral);
    expect(await eventsOf(probe, referral.id)).toHaveLength(eventsBefore);
    expect((await probe.api(`${REFERRALS}/ref-999999/commission-update`, { method: 'POST', body: { rate: 0.1 } })).status).toBe(404);
    expect((await probe.api(`${REFERRALS}/${referral.id}/commission-update`, { method: 'POST', body: {} })).status).toBe(400);

    clock.advance(10);
    await probe.api(`${REFERRALS}/${referral.id}`, { method: 'PATCH', body: { stage: 'Launched', status: 'CLOSED' } });
    clock.advance(10);
    const proposed = await probe.api(`${REFERRALS}/${referral.id}/commission-update`, { method: 'POST', body: { rate: 0.12 } });
    expect(proposed.status).toBe(200);
    expect(proposed.json).toMatchObject({ id: referral.id, lastUpdateTime: clock.iso(), commission: { proposedUpdate: { rate: 0.12 }, proposedTime: clock.iso() } });
    const advanced = await probe.api(`${REFERRALS}/${referral.id}/commission`, { method: 'PATCH', body: { action: 'ADVANCE' } });
    expect(advanced.json.commission).toMatchObject({ proposedUpdate: { rate: 0.12 }, lastAction: 'ADVANCE' });
    expect((await eventsOf(probe, referral.id)).slice(-2).map((e) => e.action)).toEqual(['UPDATED', 'UPDATED']);
  });
});

describe('commerce sandbox: referral validation a salesperson can read', () => {
  it('says what is wrong and what would be right', async () => {
    const { probe, buyer, contacts } = await start();
    const stranger = contacts.find((c) => c.buyerID !== buyer.id)!;
    const response = await probe.api(`${REFERRALS}/validate`, {
      method: 'POST',
      body: { name: 'Deal', partner: 'cloudA', buyerID: buyer.id, currency: 'usd', expectedCloseDate: '30/09/2026', dealValue: -5, contactIds: [stranger.id, 'contact-nobody'] },
    });
    expect(response.json.valid).toBe(false);
    expect(response.json.errors).toEqual([
      { field: 'dealValue', message: 'dealValue must be an amount of 0 or more, got -5' },
      { field: 'currency', message: 'currency must be a three-letter ISO 4217 code in capitals such as USD, got "usd"' },
      { field: 'expectedCloseDate', message: 'expectedCloseDate must be a calendar date written YYYY-MM-DD such as 2026-09-30, got "30/09/2026"' },
      { field: 'contactIds', message: `contact ${stranger.id} belongs to buyer ${stranger.buyerID}, not to the referral's buyer ${buyer.id}` },
      { field: 'contactIds', message: 'contact contact-nobody is not a contact of this organization' },
    ]);
    const unlinked = await probe.api(`${REFERRALS}/validate`, { method: 'POST', body: { name: 'Deal', partner: 'cloudA', buyerID: '001ACCOUNTNOTLINKED' } });
    expect(unlinked.json.errors).toEqual([{ field: 'buyerID', message: 'buyer 001ACCOUNTNOTLINKED is not a marketplace buyer of this organization: the account is not linked to a marketplace buyer' }]);
    // create says the same in its 400, field by field.
    const refused = await probe.api(REFERRALS, { method: 'POST', body: { name: 'Deal', partner: 'cloudA', buyerID: '001ACCOUNTNOTLINKED' } });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual(unlinked.json.errors);
    expect(refused.json.message).toContain('the account is not linked to a marketplace buyer');
  });
});
