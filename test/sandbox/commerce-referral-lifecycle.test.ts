// The co-sell referral lifecycle in the commerce sandbox (issue #24, A13): the partner's reason when it
// rejects, the seller's decision on an inbound referral (and the 409s around it), closing a deal by
// stage with a loss reason, a resubmission that starts clean, and where the two reasons are refused.
import { afterAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const REFERRALS = '/org/org-1/cosell/referral';
// The partner's reasons as A13 lists them, written out here rather than read from the sandbox.
const PARTNER_REASONS = [
  "Insufficient opportunity details: add the customer's business problem and expected spend",
  'Duplicate opportunity: the partner already has this customer project from another referral',
  'Customer not identifiable: add the customer website and a full company address',
  'Next steps unclear: say what the partner is asked to do and by when',
];

const started: CommerceSandbox[] = [];
afterAll(async () => {
  await Promise.all(started.map((sandbox) => sandbox.stop()));
});

async function start(options: CommerceSandboxOptions = {}) {
  const clock = manualClock('2026-05-01T00:00:00.000Z');
  const sandbox = await startCommerceSandbox({ seed: 9, entitlements: 60, now: clock.now, ...options });
  started.push(sandbox);
  const probe = probeSandbox(sandbox);
  const buyer = (await probe.records('buyers')).find((b) => b.status === 'ACTIVE')!;
  return { probe, clock, buyer };
}

const draft = (buyerID: string, extra: Record<string, unknown> = {}) => ({ name: 'Joint deal', partner: 'cloudA', buyerID, dealValue: 40_000, ...extra });

async function create(probe: SandboxProbe, body: Record<string, unknown>) {
  const response = await probe.api(REFERRALS, { method: 'POST', body });
  expect(response.status, response.text).toBe(200);
  return response.json;
}

const patch = (probe: SandboxProbe, id: string, body: Record<string, unknown>) => probe.api(`${REFERRALS}/${id}`, { method: 'PATCH', body });
const read = async (probe: SandboxProbe, id: string) => (await probe.api(`${REFERRALS}/${id}`)).json;
const eventsOf = async (probe: SandboxProbe, id: string) => (await probe.api(`/org/org-1/notificationEvent/REFERRAL/${id}`)).json.notificationEvents as any[];

/** An inbound referral as a cloud partner sends it (the change driver's partner side). */
async function inbound(probe: SandboxProbe) {
  const { changes } = (await probe.control('POST', '/changes', { count: 1, kinds: ['inboundReferral'] })).json;
  const referral = await read(probe, changes[0].id);
  expect(referral).toMatchObject({ direction: 'INBOUND', status: 'SUBMITTED' });
  return referral;
}

describe('commerce sandbox: the partner says why it rejects (A13)', () => {
  it('gives a rejected referral one of its fixed reasons, an accepted one none, and puts the reason in the event', async () => {
    const { probe, clock, buyer } = await start();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await create(probe, draft(buyer.id, { name: `Deal ${i}`, status: 'SUBMITTED' }))).id);
    clock.advance(60);
    const decided = await Promise.all(ids.map((id) => read(probe, id)));
    const rejected = decided.filter((r) => r.status === 'REJECTED');
    const accepted = decided.filter((r) => r.status === 'ACCEPTED');
    expect(rejected.length).toBeGreaterThan(0);
    expect(accepted.length + rejected.length).toBe(30);
    for (const referral of rejected) expect(PARTNER_REASONS).toContain(referral.statusReason);
    for (const referral of accepted) expect(referral).not.toHaveProperty('statusReason');

    const [one] = rejected;
    expect((await eventsOf(probe, one.id)).at(-1)).toMatchObject({
      action: 'STATUS_CHANGED', entityStatus: 'REJECTED', info: { previousStatus: 'SUBMITTED', decidedBy: 'PARTNER', statusReason: one.statusReason },
    });
    expect((await eventsOf(probe, accepted[0].id)).at(-1).info).not.toHaveProperty('statusReason');

    // Fixed by the seed and the id: another sandbox on the same seed rejects the same ones for the same reasons.
    const again = await start();
    for (let i = 0; i < 30; i++) await create(again.probe, draft(again.buyer.id, { name: `Deal ${i}`, status: 'SUBMITTED' }));
    again.clock.advance(60);
    const second = await Promise.all(ids.map((id) => read(again.probe, id)));
    expect(second.map((r) => [r.id, r.status, r.statusReason])).toEqual(decided.map((r) => [r.id, r.status, r.statusReason]));
  });

  it('keeps the reason while the seller edits, and a resubmission starts a new review without it', async () => {
    const { probe, clock, buyer } = await start();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await create(probe, draft(buyer.id, { name: `Deal ${i}`, status: 'SUBMITTED' }))).id);
    clock.advance(60);
    const rejected = (await Promise.all(ids.map((id) => read(probe, id)))).find((r) => r.status === 'REJECTED');
    expect(rejected).toBeDefined();

    clock.advance(5);
    const edited = await patch(probe, rejected.id, { description: 'Customer wants to move 40 TB of analytics; spend 40k a year' });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ status: 'REJECTED', statusReason: rejected.statusReason });

    clock.advance(5);
    const resubmitted = await patch(probe, rejected.id, { status: 'SUBMITTED', dealValue: 48_000 });
    expect(resubmitted.status).toBe(200);
    expect(resubmitted.json).toMatchObject({ status: 'SUBMITTED', dealValue: 48_000, partnerReviewEndTime: '2026-05-01T00:02:10.000Z' });
    expect(resubmitted.json).not.toHaveProperty('statusReason');
    const event = (await eventsOf(probe, rejected.id)).at(-1);
    expect(event).toMatchObject({ action: 'STATUS_CHANGED', entityStatus: 'SUBMITTED', info: { previousStatus: 'REJECTED' } });
    expect(event.info).not.toHaveProperty('statusReason');
    expect((await patch(probe, rejected.id, { description: 'more' })).status).toBe(409); // under review again
  });
});

describe("commerce sandbox: the seller's decision on an inbound referral (A13)", () => {
  it('accepts or rejects a SUBMITTED inbound referral once, with one STATUS_CHANGED event decided by the seller', async () => {
    const { probe, clock } = await start();
    const first = await inbound(probe);
    const second = await inbound(probe);
    expect(first.partnerReviewEndTime).toBeUndefined();

    clock.advance(3);
    const rejected = await patch(probe, first.id, { status: 'REJECTED', statusReason: 'Customer already buys through a reseller' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.json).toEqual({ ...first, status: 'REJECTED', statusReason: 'Customer already buys through a reseller', lastUpdateTime: '2026-05-01T00:00:03.000Z' });
    const accepted = await patch(probe, second.id, { status: 'ACCEPTED' });
    expect(accepted.json).toEqual({ ...second, status: 'ACCEPTED', lastUpdateTime: '2026-05-01T00:00:03.000Z' });

    const [rejectedEvent] = (await eventsOf(probe, first.id)).slice(-1);
    expect(rejectedEvent).toMatchObject({ action: 'STATUS_CHANGED', entityType: 'REFERRAL', entityStatus: 'REJECTED', timestamp: '2026-05-01T00:00:03.000Z' });
    expect(rejectedEvent.info).toEqual({ previousStatus: 'SUBMITTED', decidedBy: 'SELLER', statusReason: 'Customer already buys through a reseller' });
    const acceptedEvents = await eventsOf(probe, second.id);
    expect(acceptedEvents.filter((e) => e.action === 'STATUS_CHANGED')).toHaveLength(1);
    expect(acceptedEvents.at(-1).info).toEqual({ previousStatus: 'SUBMITTED', decidedBy: 'SELLER' });

    // Decided once: another decision is a 409 naming the status it has now, and changes nothing.
    const eventCount = (await eventsOf(probe, first.id)).length;
    const changedMind = await patch(probe, first.id, { status: 'ACCEPTED' });
    expect(changedMind.status).toBe(409);
    expect(changedMind.json).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'REJECTED' });
    expect(changedMind.json.message).toContain('only while it is SUBMITTED');
    expect(changedMind.json.message).toContain('REJECTED');
    expect((await patch(probe, second.id, { status: 'REJECTED', statusReason: 'changed our mind' })).json).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'ACCEPTED' });
    expect((await patch(probe, first.id, { status: 'REJECTED', statusReason: 'another reason' })).status).toBe(409);
    expect(await read(probe, first.id)).toEqual(rejected.json);
    expect(await eventsOf(probe, first.id)).toHaveLength(eventCount);

    // The same decision sent again (a retry after a lost answer) is not a new decision: 200, no status change.
    const retried = await patch(probe, first.id, { status: 'REJECTED', statusReason: 'Customer already buys through a reseller' });
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ status: 'REJECTED', statusReason: 'Customer already buys through a reseller' });
    expect((await eventsOf(probe, first.id)).at(-1).action).toBe('UPDATED');
  });

  it('answers 409 for a decision on an inbound referral that is not SUBMITTED, and starts no partner review on one', async () => {
    const { probe, buyer } = await start();
    const waiting = await create(probe, draft(buyer.id, { direction: 'INBOUND', status: 'DRAFT' }));
    const refused = await patch(probe, waiting.id, { status: 'ACCEPTED' });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ code: 'FAILED_PRECONDITION', status: 'DRAFT', message: `the seller accepts or rejects an inbound referral only while it is SUBMITTED; referral ${waiting.id} is DRAFT` });

    // An inbound referral in SUBMITTED awaits the seller: no partner review, so the seller decides at once.
    const submitted = await create(probe, draft(buyer.id, { direction: 'INBOUND', status: 'SUBMITTED' }));
    expect(submitted).not.toHaveProperty('partnerReviewEndTime');
    expect((await patch(probe, submitted.id, { status: 'ACCEPTED' })).json.status).toBe('ACCEPTED');
  });

  it('refuses a seller decision on an outbound referral: only the partner decides it', async () => {
    const { probe, buyer } = await start({ partnerReviewSeconds: 0 });
    for (const status of ['DRAFT', 'SUBMITTED']) {
      const outbound = await create(probe, draft(buyer.id, { status }));
      const events = (await eventsOf(probe, outbound.id)).length;
      for (const body of [{ status: 'ACCEPTED' }, { status: 'REJECTED', statusReason: 'not a fit' }]) {
        const refused = await patch(probe, outbound.id, body);
        expect(refused.status).toBe(409);
        expect(refused.json).toEqual({ code: 'FAILED_PRECONDITION', status, message: `only the partner decides an outbound referral: referral ${outbound.id} is ${status}; the partner accepts or rejects it after reviewing a submission` });
      }
      expect(await read(probe, outbound.id)).toEqual(outbound);
      expect(await eventsOf(probe, outbound.id)).toHaveLength(events);
    }
  });

  it('refuses a statusReason sent without a decision with a 400 naming the field, before any 409', async () => {
    const { probe, buyer } = await start();
    const item = await inbound(probe);
    const outbound = await create(probe, draft(buyer.id));
    const cases: [string, Record<string, unknown>, string][] = [
      [item.id, { statusReason: 'why' }, 'statusReason explains the seller\'s decision: send it with status "ACCEPTED" or "REJECTED", it was sent without a status'],
      [item.id, { status: 'SUBMITTED', statusReason: 'why' }, 'statusReason explains the seller\'s decision: send it with status "ACCEPTED" or "REJECTED", it was sent with status "SUBMITTED"'],
      [item.id, { status: 'REJECTED', statusReason: '  ' }, 'statusReason must be a non-empty string, got "  "'],
      [item.id, { status: 'REJECTED', statusReason: 7 }, 'statusReason must be a non-empty string, got 7'],
      // A2's order: wrong in itself is a 400 even where the decision would be a 409.
      [outbound.id, { status: 'DRAFT', statusReason: 'why' }, 'statusReason explains the seller\'s decision: send it with status "ACCEPTED" or "REJECTED", it was sent with status "DRAFT"'],
    ];
    for (const [id, body, message] of cases) {
      const refused = await patch(probe, id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.code).toBe('INVALID_ARGUMENT');
      expect(refused.json.errors).toContainEqual({ field: 'statusReason', message });
    }
    expect(await read(probe, item.id)).toEqual(item);
  });
});

describe('commerce sandbox: the seller closes a deal by stage (A13)', () => {
  it('closes the referral at Launched or Closed Lost, keeping the loss reason, and names the field sent with another stage', async () => {
    const { probe, clock, buyer } = await start({ partnerReviewSeconds: 0 });
    const lost = await create(probe, draft(buyer.id, { status: 'ACCEPTED', stage: 'Committed' }));
    const won = await create(probe, draft(buyer.id, { status: 'ACCEPTED', stage: 'Committed' }));

    clock.advance(7);
    const closedLost = await patch(probe, lost.id, { stage: 'Closed Lost', closedLostReason: 'Price' });
    expect(closedLost.status, closedLost.text).toBe(200);
    expect(closedLost.json).toEqual({ ...lost, stage: 'Closed Lost', status: 'CLOSED', closedLostReason: 'Price', lastUpdateTime: '2026-05-01T00:00:07.000Z' });
    expect((await eventsOf(probe, lost.id)).at(-1)).toMatchObject({ action: 'STATUS_CHANGED', entityStatus: 'CLOSED', info: { previousStatus: 'ACCEPTED', closedLostReason: 'Price' } });
    const launched = await patch(probe, won.id, { stage: 'Launched' });
    expect(launched.json).toMatchObject({ stage: 'Launched', status: 'CLOSED' });
    expect(launched.json).not.toHaveProperty('closedLostReason');

    for (const body of [{ stage: 'Launched', closedLostReason: 'Price' }, { closedLostReason: 'Price' }]) {
      const refused = await patch(probe, won.id, body);
      expect(refused.status).toBe(400);
      expect(refused.json.errors).toEqual([{ field: 'closedLostReason', message: 'closedLostReason says why a deal was lost: it goes with stage "Closed Lost" only, not with stage "Launched"' }]);
    }
    expect((await patch(probe, lost.id, { closedLostReason: '' })).status).toBe(400);
    // A new reason on a lost deal is kept; the stage moved back (say the CRM owns it) drops it.
    expect((await patch(probe, lost.id, { closedLostReason: 'Lost to Competitor - Other' })).json.closedLostReason).toBe('Lost to Competitor - Other');
    const reopened = await patch(probe, lost.id, { stage: 'Committed' });
    expect(reopened.json.stage).toBe('Committed');
    expect(reopened.json).not.toHaveProperty('closedLostReason');
  });
});

describe('commerce sandbox: the reasons on create, validate and batchCreate (A13)', () => {
  it('accepts status SUBMITTED and the reasons where they mean something, and names them where they do not', async () => {
    const { probe, buyer } = await start();
    const validate = async (body: Record<string, unknown>) => (await probe.api(`${REFERRALS}/validate`, { method: 'POST', body })).json;
    expect(await validate(draft(buyer.id, { status: 'SUBMITTED' }))).toEqual({ valid: true, errors: [] });
    expect(await validate(draft(buyer.id, { status: 'CLOSED', stage: 'Closed Lost', closedLostReason: 'Price' }))).toEqual({ valid: true, errors: [] });
    expect(await validate(draft(buyer.id, { direction: 'INBOUND', status: 'REJECTED', statusReason: 'Out of territory' }))).toEqual({ valid: true, errors: [] });
    expect(await validate(draft(buyer.id, { statusReason: 'why', closedLostReason: 'Price' }))).toEqual({
      valid: false,
      errors: [
        { field: 'statusReason', message: 'statusReason explains a decision: it goes with status "REJECTED" or "ACCEPTED", not with status "DRAFT"' },
        { field: 'closedLostReason', message: 'closedLostReason says why a deal was lost: it goes with stage "Closed Lost" only, not with stage "Prospect"' },
      ],
    });

    const refused = await probe.api(REFERRALS, { method: 'POST', body: draft(buyer.id, { status: 'SUBMITTED', statusReason: 'why' }) });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([{ field: 'statusReason', message: 'statusReason explains a decision: it goes with status "REJECTED" or "ACCEPTED", not with status "SUBMITTED"' }]);

    const { results } = (await probe.api(`${REFERRALS}/batchCreate`, { method: 'POST', body: { referrals: [draft(buyer.id, { status: 'SUBMITTED', closedLostReason: 'Price' }), draft(buyer.id, { status: 'SUBMITTED' })] } })).json;
    expect(results[0].error.errors).toEqual([{ field: 'closedLostReason', message: 'closedLostReason says why a deal was lost: it goes with stage "Closed Lost" only, not with stage "Prospect"' }]);
    expect(results[1].referral).toMatchObject({ status: 'SUBMITTED', partnerReviewEndTime: '2026-05-01T00:01:00.000Z' });
  });
});
