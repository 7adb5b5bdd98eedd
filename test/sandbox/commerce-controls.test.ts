// The sandbox's own behaviour around the contract: 501 for catalogue operations it does not implement,
// 404 for unknown paths, injected faults, call counts and the other /_sandbox controls.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../commerce/operations.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

let sandbox: CommerceSandbox;
let probe: SandboxProbe;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 8, entitlements: 60 });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await probe.control('DELETE', '/faults');
});

describe('commerce sandbox: operations it does not implement', () => {
  it('answers 501 naming the operation for every catalogue operation without a handler', async () => {
    const notImplemented: string[] = [];
    for (const operation of OPERATIONS) {
      const path = operation.path.replace('{orgId}', 'org-1').replace(/\{(\w+)\}/g, 'x-$1');
      const response = await probe.api(path, { method: operation.method, body: operation.method === 'POST' || operation.method === 'PATCH' ? {} : undefined });
      if (response.status === 501) {
        expect(response.json).toEqual({ code: 'NOT_IMPLEMENTED', message: `${operation.method} ${operation.path} is not implemented by the sandbox`, operation: `${operation.method} ${operation.path}` });
        notImplemented.push(`${operation.method} ${operation.path}`);
      } else {
        expect(response.status, `${operation.method} ${operation.path}`).not.toBe(405);
      }
    }
    expect(notImplemented).toContain('POST /org/{orgId}/product');
    expect(notImplemented).toContain('POST /org/{orgId}/entitlement/{entitlementId}/cancel');
    expect(notImplemented).not.toContain('GET /org/{orgId}/offer');
    // The draft renewal offer (issue #25 section 3) and the two usage aggregates (section 4) joined the 35,
    // then the five product reads (issue #28, A18).
    expect(notImplemented).not.toContain('GET /org/{orgId}/entitlement/{entitlementId}/renewal/draftOffer');
    for (const read of ['GET /org/{orgId}/product', 'GET /org/{orgId}/product/query', 'GET /org/{orgId}/product/{productId}', 'GET /org/{orgId}/partner/{partner}/product', 'GET /org/{orgId}/product/{productId}/dimension']) expect(notImplemented).not.toContain(read);
    // And the services and quotas snapshot (issue #29, A20).
    expect(notImplemented).not.toContain('GET /org/{orgId}/services-and-quotas');
    expect(OPERATIONS.length - notImplemented.length).toBe(44);
  });

  it('answers 404 (a plain string) for paths outside the catalogue', async () => {
    const response = await probe.api('/org/org-1/no-such-thing');
    expect(response.status).toBe(404);
    expect(typeof response.json).toBe('string');
    expect((await probe.api('/v1/org')).status).toBe(404);
  });
});

describe('commerce sandbox: faults', () => {
  it('injects a 429 with Retry-After on the chosen operation only', async () => {
    const set = await probe.control('POST', '/faults', { operation: 'GET /org/{orgId}/offer', rate429: 1, retryAfterSeconds: 7 });
    expect(set.status).toBe(200);
    const limited = await probe.api('/org/org-1/offer');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect((await probe.api('/org/org-1/entitlement')).status).toBe(200);
    await probe.control('DELETE', '/faults');
    expect((await probe.api('/org/org-1/offer')).status).toBe(200);
  });

  it("applies a '*' rule to every API operation: 500s", async () => {
    await probe.control('POST', '/faults', { operation: '*', rate500: 1 });
    expect((await probe.api('/org/org-1/buyer')).status).toBe(500);
    expect((await probe.api('/org')).status).toBe(500);
    expect((await probe.token()).length).toBeGreaterThan(10); // the token endpoint needs its own rule
  });

  it('sends an unparsable 200 body when malformed', async () => {
    await probe.control('POST', '/faults', { operation: 'GET /org/{orgId}/buyer/{buyerId}', malformedRate: 1 });
    const response = await probe.api('/org/org-1/buyer/buyer-000001');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(() => JSON.parse(response.text)).toThrow();
  });

  it('drops the connection half-way through the body when truncated', async () => {
    await probe.control('POST', '/faults', { operation: 'GET /org/{orgId}/contact', truncatedRate: 1 });
    const response = await fetch(`${sandbox.apiUrl}/org/org-1/contact`, { headers: { authorization: `Bearer ${await probe.token()}` } });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('adds latency', async () => {
    await probe.control('POST', '/faults', { operation: '*', latencyMs: 150 });
    const started = performance.now();
    expect((await probe.api('/org')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('decides partial rates from a seeded PRNG, so the same run gives the same faults', async () => {
    const run = async () => {
      await probe.control('DELETE', '/faults');
      await probe.control('POST', '/faults', { operation: 'GET /org', rate429: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await probe.api('/org')).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(429);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('reaches the token endpoint only through its own key', async () => {
    await probe.control('POST', '/faults', { operation: 'POST /oauth2/token', rate429: 1, retryAfterSeconds: 3 });
    const response = await fetch(`${sandbox.authUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
  });

  it('rejects rates outside 0..1 and unknown fields', async () => {
    expect((await probe.control('POST', '/faults', { rate429: 2 })).status).toBe(400);
    expect((await probe.control('POST', '/faults', { rate404: 1 })).status).toBe(400);
    expect((await probe.control('POST', '/faults', { operation: 'offer list' })).status).toBe(400);
  });
});

describe('commerce sandbox: controls', () => {
  it('counts calls per operation key, including refused ones, and resets the counts', async () => {
    await probe.control('POST', '/calls/reset');
    await probe.api('/org/org-1/offer');
    await probe.api('/org/org-1/offer', { query: { limit: 5 } });
    await probe.api('/org/org-1/offer/offer-000001');
    await probe.api('/org/org-1/offer', { token: null });
    await probe.api('/org/org-1/offer', { method: 'PUT' });
    const calls = (await probe.control('GET', '/calls')).json;
    expect(calls).toEqual({
      total: 5,
      operations: { 'GET /org/{orgId}/offer': 3, 'GET /org/{orgId}/offer/{offerId}': 1, 'PUT /org/{orgId}/offer': 1 },
    });
    await probe.token();
    expect((await probe.control('GET', '/calls')).json.operations['POST /oauth2/token']).toBe(1);
    await probe.control('POST', '/calls/reset');
    expect((await probe.control('GET', '/calls')).json).toEqual({ total: 0, operations: {} });
  });

  it('resets data, counts, faults and tokens', async () => {
    const token = await probe.token();
    await probe.api('/org/org-1/offer/offer-000002', { method: 'DELETE', token });
    await probe.control('POST', '/faults', { operation: 'GET /org', rate500: 1 });
    expect((await probe.control('POST', '/reset')).status).toBe(200);
    expect((await probe.api('/org', { token })).status).toBe(401);
    probe.forgetToken();
    expect((await probe.api('/org')).status).toBe(200);
    const offer = (await probe.records('offers')).find((o) => o.id === 'offer-000002');
    expect(offer.status).not.toBe('DELETED');
    // Counted since the reset: the refused call, the new token, the accepted call.
    expect((await probe.control('GET', '/calls')).json).toEqual({ total: 3, operations: { 'GET /org': 2, 'POST /oauth2/token': 1 } });
  });

  it('describes itself and refuses unknown record kinds', async () => {
    const info = (await probe.control('GET', '')).json;
    expect(info).toMatchObject({ apiUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, organizationId: 'org-1', seed: 8, counts: { entitlements: 60 } });
    expect((await probe.control('GET', '/records/wallets')).status).toBe(404);
  });
});

describe('commerce sandbox: the change driver rate', () => {
  it('starts, changes and stops the timer while the sandbox runs; a bad rate is a 400 naming it', async () => {
    const events = async () => ((await probe.control('GET', '/records/notificationEvents')).json as unknown[]).length;
    const before = await events();
    expect((await probe.control('POST', '/changes/rate', { changesPerSecond: 50 })).json).toEqual({ changesPerSecond: 50 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await probe.control('POST', '/changes/rate', { changesPerSecond: 0 })).status).toBe(200);
    const stopped = await events();
    expect(stopped).toBeGreaterThan(before);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await events()).toBe(stopped);
    const bad = await probe.control('POST', '/changes/rate', { changesPerSecond: -1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toMatch(/changesPerSecond/);
  });
});
