// The sandbox's service quotas (§8, A20): the snapshot with live counts, enforcement per fixed window
// with a 429 naming the quota, per organization, the snapshot read never counted, and the controls.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-03-10T12:00:15.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 3, entitlements: 20, now: clock.now });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await probe.control('POST', '/reset');
  probe.forgetToken();
});

const snapshot = async () => (await probe.api('/org/org-1/services-and-quotas')).json;

describe('commerce sandbox: service quotas', () => {
  it('reports generous defaults with the calls used in the current hour', async () => {
    await probe.api('/org/org-1/offer');
    await probe.api('/org/org-1/buyer');
    const body = await snapshot();
    expect(body.quotas).toEqual([{ name: 'apiRequests', limit: 10_000_000, used: 2, period: 'HOUR', resetsAt: '2026-03-10T13:00:00.000Z' }]);
    expect(body.services).toContainEqual({ name: 'offers', enabled: true });
  });

  it('refuses the call past a quota with 429, Retry-After until the window ends and the quota named, counting neither it nor the snapshot', async () => {
    await probe.control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: 3, period: 'MINUTE' }] });
    for (let call = 0; call < 3; call++) expect((await probe.api('/org/org-1/offer')).status).toBe(200);
    await snapshot();
    const refused = await probe.api('/org/org-1/entitlement');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.json).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: 'organization org-1 has used its apiRequests quota (3 per minute) until 2026-03-10T12:01:00.000Z',
      quota: 'apiRequests',
      limit: 3,
      period: 'MINUTE',
      resetsAt: '2026-03-10T12:01:00.000Z',
    });
    expect((await snapshot()).quotas).toEqual([{ name: 'apiRequests', limit: 3, used: 3, period: 'MINUTE', resetsAt: '2026-03-10T12:01:00.000Z' }]);
    expect((await probe.control('GET', '/quotas')).json['org-1'].refused).toBe(1);

    // The next minute starts from 0.
    clock.advance(45);
    expect((await probe.api('/org/org-1/entitlement')).status).toBe(200);
    expect((await snapshot()).quotas[0]).toMatchObject({ used: 1, resetsAt: '2026-03-10T12:02:00.000Z' });
    clock.advance(15);
  });

  it('enforces every quota at once: the tighter one refuses first', async () => {
    await probe.control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: 100, period: 'DAY' }, { name: 'burst', limit: 1, period: 'MINUTE' }] });
    expect((await probe.api('/org/org-1/offer')).status).toBe(200);
    const refused = await probe.api('/org/org-1/offer');
    expect(refused.status).toBe(429);
    expect(refused.json.quota).toBe('burst');
    expect((await snapshot()).quotas.map((quota: { name: string; used: number }) => [quota.name, quota.used])).toEqual([['apiRequests', 1], ['burst', 1]]);
  });

  it('keeps quotas per organization: another organization\'s quota leaves this one alone', async () => {
    await probe.control('POST', '/quotas', { organizationId: 'org-elsewhere', quotas: [{ name: 'apiRequests', limit: 0, period: 'DAY' }] });
    expect((await probe.api('/org/org-1/offer')).status).toBe(200);
    expect((await snapshot()).quotas[0]).toMatchObject({ limit: 10_000_000, used: 1 });
  });

  it('takes quotas back to the defaults on reset and DELETE, and refuses malformed quotas naming the field', async () => {
    await probe.control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: 0, period: 'MINUTE' }] });
    expect((await probe.api('/org/org-1/offer')).status).toBe(429);
    await probe.control('DELETE', '/quotas');
    expect((await probe.api('/org/org-1/offer')).status).toBe(200);
    const bad = await probe.control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: 5, period: 'WEEK' }] });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'quotas[0].period' });
  });
});
