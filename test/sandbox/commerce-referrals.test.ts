// Co-sell referrals in the commerce sandbox (A6): list, get, create, validate, batchCreate, update.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-05-01T00:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let referrals: any[];
let buyerId: string;

const count = async () => (await probe.records('referrals')).length;
const valid = () => ({ name: 'Joint deal', partner: 'cloudA', buyerID: buyerId, dealValue: 50000, expectedCloseDate: '2026-09-30', crmCOpportunityId: '0f8fad5b-d9cb-469f-a165-70867728950e' });

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 9, entitlements: 100, now: clock.now });
  probe = probeSandbox(sandbox);
  referrals = await probe.records('referrals');
  buyerId = (await probe.records('buyers'))[0].id;
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: referrals', () => {
  it('lists with filters and a sort, and gets one', async () => {
    expect(referrals.length).toBe(10);
    const listed = await probe.api('/org/org-1/cosell/referral', { query: { s: '-dealValue' } });
    expect(listed.json.map((r: any) => r.id)).toEqual(referrals.slice().sort((a, b) => b.dealValue - a.dealValue).map((r) => r.id));
    const status = referrals[0].status;
    expect((await probe.api('/org/org-1/cosell/referral', { query: { status } })).json.map((r: any) => r.id)).toEqual(referrals.filter((r) => r.status === status).map((r) => r.id));
    expect((await probe.api(`/org/org-1/cosell/referral/${referrals[2].id}`)).json).toEqual(referrals[2]);
  });

  it('validates without saving', async () => {
    const before = await count();
    const good = await probe.api('/org/org-1/cosell/referral/validate', { method: 'POST', body: valid() });
    expect(good.json).toEqual({ valid: true, errors: [] });
    const bad = await probe.api('/org/org-1/cosell/referral/validate', { method: 'POST', body: { partner: 'cloudZ', buyerID: 'buyer-404', stage: 'Won', crmCOpportunityId: '{0F8FAD5B-D9CB-469F-A165-70867728950E}' } });
    expect(bad.status).toBe(200);
    expect(bad.json.valid).toBe(false);
    expect(bad.json.errors.map((e: any) => e.field).sort()).toEqual(['buyerID', 'crmCOpportunityId', 'name', 'partner', 'stage']);
    expect(await count()).toBe(before);
  });

  it('creates with defaults, and refuses an invalid body with a 400 listing the errors', async () => {
    const created = await probe.api('/org/org-1/cosell/referral', { method: 'POST', body: valid() });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ ...valid(), direction: 'OUTBOUND', status: 'DRAFT', stage: 'Prospect', creationTime: clock.iso(), organizationID: 'org-1' });
    const refused = await probe.api('/org/org-1/cosell/referral', { method: 'POST', body: { ...valid(), partner: 'nope' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'INVALID_ARGUMENT', errors: [{ field: 'partner' }] });
  });

  it('batch-creates the valid items and reports each invalid one by index', async () => {
    const before = await count();
    const response = await probe.api('/org/org-1/cosell/referral/batchCreate', {
      method: 'POST',
      body: { referrals: [valid(), { ...valid(), stage: 'Nearly there' }, 'not an object', { ...valid(), name: 'Second' }] },
    });
    expect(response.status).toBe(200);
    const results = response.json.results;
    expect(results.map((r: any) => [r.index, Boolean(r.referral), Boolean(r.error)])).toEqual([[0, true, false], [1, false, true], [2, false, true], [3, true, false]]);
    expect(results[1].error.errors).toEqual([{ field: 'stage', message: expect.stringContaining('Nearly there') }]);
    expect(await count()).toBe(before + 2);
    expect((await probe.api('/org/org-1/cosell/referral/batchCreate', { method: 'POST', body: { referrals: 'x' } })).status).toBe(400);
  });

  it('updates stage and status, refuses a stage or status outside A6, and leaves the record unchanged then', async () => {
    const target = referrals.find((r) => r.status !== 'CLOSED')!;
    const badStage = await probe.api(`/org/org-1/cosell/referral/${target.id}`, { method: 'PATCH', body: { stage: 'Closed Won' } });
    expect(badStage.status).toBe(400);
    expect(badStage.json).toMatchObject({ code: 'INVALID_ARGUMENT', errors: [{ field: 'stage' }] });
    expect((await probe.api(`/org/org-1/cosell/referral/${target.id}`, { method: 'PATCH', body: { status: 'WON' } })).status).toBe(400);
    expect((await probe.api(`/org/org-1/cosell/referral/${target.id}`, { method: 'PATCH', body: { status: null } })).status).toBe(400);
    expect((await probe.api(`/org/org-1/cosell/referral/${target.id}`)).json).toEqual(target);

    clock.advance(42);
    const won = await probe.api(`/org/org-1/cosell/referral/${target.id}`, { method: 'PATCH', body: { stage: 'Launched', status: 'CLOSED', dealValue: 123, id: 'hijack' } });
    expect(won.status).toBe(200);
    expect(won.json).toMatchObject({ id: target.id, stage: 'Launched', status: 'CLOSED', dealValue: 123, lastUpdateTime: clock.iso() });
    const events = (await probe.api(`/org/org-1/notificationEvent/REFERRAL/${target.id}`)).json.notificationEvents;
    expect(events.at(-1)).toMatchObject({ action: 'STATUS_CHANGED', entityStatus: 'CLOSED', timestamp: clock.iso() });
  });
});
