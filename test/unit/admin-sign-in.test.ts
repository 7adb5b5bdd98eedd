// Console sign-in facing hostile input: `next` sends a person only to a path of this server, whatever
// the URL carries (browsers drop tabs and newlines and read `\` as `/`), and failed sign-ins from one
// address are throttled, on the sign-in form and as wrong bearer tokens alike: the sixth within a minute
// is answered 429 with Retry-After.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleDeps } from '../../admin/console/routes.ts';
import { safeNext } from '../../admin/safe-next.ts';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSignInThrottle } from '../../admin/sign-in-throttle.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

const TOKEN = 'sign-in-test-token-0123456789abcdef';

let admin: AdminServer | undefined;
afterEach(async () => {
  await admin?.stop();
  admin = undefined;
});

// The sign-in routes never reach the console's reads, so none are given.
const start = async (options: Partial<Parameters<typeof startAdminServer>[0]> = {}) =>
  (admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics(), console: {} as ConsoleDeps, sessionStorage: 'memory', ...options }));

const signIn = (server: AdminServer, token: string, next?: string) =>
  fetch(`${server.url}/login`, { method: 'POST', body: new URLSearchParams({ token, ...(next !== undefined && { next }) }), redirect: 'manual' });

describe('where sign-in sends a person (next)', () => {
  it.each([
    ['/\t/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/.//evil.example', '/'],
    ['/..//evil.example', '/'],
    ['', '/'],
    // Percent-encoded, these are paths of this server: a browser does not decode them into a host.
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['/%09/evil.example', '/%09/evil.example'],
    ['/connections/x?y=1', '/connections/x?y=1'],
    ['/connections/x#dead-letters', '/connections/x#dead-letters'],
  ])('safeNext(%j) is %j', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  it('sends to / after sign-in when the form says next=/%09/evil.example (a tab, dropped by browsers)', async () => {
    const server = await start();
    const answer = await fetch(`${server.url}/login`, {
      method: 'POST',
      body: `token=${TOKEN}&next=/%09/evil.example`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
  });

  it('keeps a same-origin path with its query', async () => {
    const server = await start();
    const answer = await signIn(server, TOKEN, '/connections/x?y=1');
    expect(answer.headers.get('location')).toBe('/connections/x?y=1');
  });

  it('does not carry a hostile next into the login form', async () => {
    const server = await start();
    const page = await (await fetch(`${server.url}/login?next=/%09/evil.example`)).text();
    expect(page).toContain('<input type="hidden" name="next" value="/">');
  });
});

describe('failed sign-ins', () => {
  it('answers the sixth failure within a minute 429 with Retry-After, even with the right token then', async () => {
    const server = await start();
    for (let attempt = 1; attempt <= 5; attempt++) expect((await signIn(server, 'not-the-token')).status, `attempt ${attempt}`).toBe(401);
    const sixth = await signIn(server, 'not-the-token');
    expect(sixth.status).toBe(429);
    const wait = Number(sixth.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await sixth.text()).toMatch(/^Too many failed sign-ins from this address: try again in \d+ seconds\.\n$/);
    expect((await signIn(server, TOKEN)).status).toBe(429);
    // The address is throttled whatever it offers: the right bearer token from it waits too.
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(429);
  });

  it('counts a wrong bearer token as a failed sign-in: the sixth within a minute is answered 429 with Retry-After, even with the right token then', async () => {
    const server = await start();
    const bearer = (token: string, path = '/metrics') => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    // Any path: the guess is refused before anything is routed.
    for (let attempt = 1; attempt <= 5; attempt++) expect((await bearer('not-the-token', attempt % 2 ? '/metrics' : '/api/connections/x/retry')).status, `attempt ${attempt}`).toBe(401);
    const sixth = await bearer('not-the-token');
    expect(sixth.status).toBe(429);
    const wait = Number(sixth.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await sixth.text()).toMatch(/^Too many failed sign-ins from this address: try again in \d+ seconds\.\n$/);
    expect((await bearer(TOKEN)).status).toBe(429);
    // Token sign-in on the form shares the same count.
    expect((await signIn(server, TOKEN)).status).toBe(429);
  });

  it('does not count a request without a bearer token, nor the right one', async () => {
    const server = await start();
    for (let attempt = 1; attempt <= 6; attempt++) expect((await fetch(`${server.url}/metrics`)).status, `attempt ${attempt}`).toBe(401);
    for (let attempt = 1; attempt <= 6; attempt++) expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('forgets failures a successful sign-in followed, and those older than a minute', async () => {
    let now = 1_000_000;
    const server = await start({ signInThrottle: createSignInThrottle({ clock: () => now }) });
    for (let attempt = 1; attempt <= 4; attempt++) expect((await signIn(server, 'not-the-token')).status).toBe(401);
    expect((await signIn(server, TOKEN)).status).toBe(303);
    for (let attempt = 1; attempt <= 5; attempt++) expect((await signIn(server, 'not-the-token')).status, `attempt ${attempt} after success`).toBe(401);
    expect((await signIn(server, 'not-the-token')).status).toBe(429);
    now += 60_001;
    expect((await signIn(server, 'not-the-token')).status).toBe(401);
  });
});

describe('createSignInThrottle', () => {
  it('slides: an address is free again as soon as its oldest failure leaves the window', () => {
    let now = 0;
    const throttle = createSignInThrottle({ limit: 3, windowMs: 10_000, clock: () => now });
    throttle.failed('a'); // t=0
    now = 4_000;
    throttle.failed('a');
    throttle.failed('a');
    expect(throttle.retryAfter('a')).toBe(6); // the failure at t=0 leaves at t=10s
    expect(throttle.retryAfter('b')).toBeUndefined();
    now = 10_001;
    expect(throttle.retryAfter('a')).toBeUndefined();
    throttle.failed('a');
    expect(throttle.retryAfter('a')).toBe(4); // now the failures at t=4s count: free at t=14s
  });

  it('keeps at most maxAddresses, forgetting the longest-quiet', () => {
    const throttle = createSignInThrottle({ limit: 1, maxAddresses: 2, clock: () => 0 });
    throttle.failed('a');
    throttle.failed('b');
    throttle.failed('c');
    expect(throttle.retryAfter('a')).toBeUndefined();
    expect(throttle.retryAfter('b')).toBe(60);
    expect(throttle.retryAfter('c')).toBe(60);
  });
});
