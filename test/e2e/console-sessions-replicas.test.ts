// The console as a fleet runs it: two admin servers (two worker replicas) on one real PostgreSQL, as behind
// a load balancer that sends each request wherever it likes. A session made on one is known on the other,
// a form carrying the CSRF token of one's page is accepted by the other, the flash set on one shows on the
// other, and signing out on either ends the session on both. A replica started after another stopped (a
// deploy) still knows the session; an expired one (the sessions' clock moved, nothing waits) is refused
// everywhere and swept, and so is a sign-in in progress past its ten minutes. The table holds neither the
// cookie's id nor the CSRF token, only the id's SHA-256 (computed here independently). An OpenID Connect
// sign-in that starts on one replica and whose callback the provider sends to the other succeeds, in
// headless Chromium against a real provider.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleDeps } from '../../admin/console/routes.ts';
import { startAdminServer, type AdminServer, type AdminServerOptions } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

const ADMIN_TOKEN = `replica-console-token-${randomBytes(12).toString('hex')}`;
const TWELVE_HOURS = 12 * 3600_000;
const PEOPLE = { ada: { name: 'Ada Admin', email: 'ada@example.com', groups: ['crm-admins'] } };
const NOTHING_TO_RETRY = 'No open dead letters (entity offer) for acme: nothing to retry';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('console sessions shared by the replicas through PostgreSQL', () => {
  let database: TestDatabase;
  let provider: TestOidcProvider;
  let consoleDeps: ConsoleDeps;
  let connectionId = '';
  const running: AdminServer[] = [];
  let a: AdminServer;
  let b: AdminServer;
  // The sessions' clock, one for every replica: moved to see a session end.
  let clockOffset = 0;

  const oidcSettings = () => ({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    scopes: ['openid', 'profile', 'email', 'groups'],
    rolesClaim: 'groups',
    groups: { admin: ['crm-admins'], operator: [], viewer: [] },
  });

  async function startReplica(extra: Partial<AdminServerOptions> = {}): Promise<AdminServer> {
    const server = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: ADMIN_TOKEN,
      metrics: createSyncMetrics(),
      console: consoleDeps,
      sessionStorage: { postgres: database.pool },
      clock: () => Date.now() + clockOffset,
      ...extra,
    });
    running.push(server);
    return server;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    const connections = createConnectionStore(database.pool, new SecretBox(randomBytes(32)));
    const secret = `commerce-secret-${randomBytes(8).toString('hex')}`;
    connectionId = (
      await connections.create({
        name: 'acme',
        crmKind: 'salesforce',
        settings: {
          commerce: { baseUrl: 'https://commerce.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
          crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 's' },
          entities: ['offer'],
        },
        secrets: { commerceClientSecret: secret, crmClientSecret: secret, crmRefreshToken: secret },
      })
    ).id;
    // Nothing here reaches Temporal: a retry with no open dead letter answers from PostgreSQL.
    consoleDeps = { pool: database.pool, connections, temporal: () => Promise.reject(new Error('no Temporal in this test')), taskQueue: 'unused' };
    provider = await startOidcProvider(PEOPLE);
    // The provider sends everyone back to B's callback, wherever they started: as one address in front of
    // the fleet would, whichever replica it then picks.
    b = await startReplica({ oidc: oidcSettings() });
    await provider.register(b.oidcRedirectUrl!);
    a = await startReplica({ oidc: { ...oidcSettings(), redirectUrl: b.oidcRedirectUrl } });
  });
  afterAll(async () => {
    for (const server of running) await server.stop();
    await provider?.stop();
    await database?.drop();
  });

  /** Signs in on `server` with the admin token: the session cookie's value. */
  async function signIn(server: AdminServer): Promise<string> {
    const answer = await fetch(`${server.url}/login`, { method: 'POST', body: new URLSearchParams({ token: ADMIN_TOKEN }), redirect: 'manual' });
    expect(answer.status).toBe(303);
    const cookie = /^crm_sync_session=([^;]+);/.exec(answer.headers.getSetCookie().join('\n'))?.[1];
    expect(cookie).toMatch(/^[\w-]{32}$/);
    return cookie!;
  }
  const open = (server: AdminServer, cookie: string, path = `/connections/${connectionId}`) =>
    fetch(`${server.url}${path}`, { headers: { cookie: `crm_sync_session=${cookie}` }, redirect: 'manual' });
  const post = (server: AdminServer, cookie: string, path: string, form: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { cookie: `crm_sync_session=${cookie}` }, body: new URLSearchParams(form), redirect: 'manual' });
  /** The CSRF token a page of `server` gives its forms (the sign-out form's). */
  async function csrfOn(server: AdminServer, cookie: string): Promise<string> {
    const page = await open(server, cookie);
    expect(page.status).toBe(200);
    const csrf = /<form method="post" action="\/logout" class="signout"><input type="hidden" name="csrf" value="([^"]+)">/.exec(await page.text())?.[1];
    expect(csrf).toBeTruthy();
    return csrf!;
  }
  const expectSentToSignIn = (answer: Response) => {
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/login?expired=1&next=${encodeURIComponent(`/connections/${connectionId}`)}`);
  };
  const storedHashes = async () => (await database.pool.query<{ hash: string }>("SELECT encode(id_hash, 'hex') AS hash FROM console_sessions")).rows.map((row) => row.hash);

  it('knows a session made on A on B; B takes a form with the CSRF token of A\'s page, its flash shows on A; signing out on B ends it on A', async () => {
    const cookie = await signIn(a);
    const onB = await open(b, cookie);
    expect(onB.status).toBe(200);
    expect(await onB.text()).toContain('admin token');

    const csrf = await csrfOn(a, cookie);
    // The check is there: B refuses the same form with another token.
    expect((await post(b, cookie, `/connections/${connectionId}/retry`, { csrf: `${csrf}x`, entity: 'offer' })).status).toBe(403);
    const retried = await post(b, cookie, `/connections/${connectionId}/retry`, { csrf, entity: 'offer' });
    expect(retried.status).toBe(303);
    // The flash B set is shown once, by A, then gone on B too.
    expect(await (await open(a, cookie)).text()).toContain(NOTHING_TO_RETRY);
    expect(await (await open(b, cookie)).text()).not.toContain(NOTHING_TO_RETRY);

    const signedOut = await post(b, cookie, '/logout', { csrf });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe('/login?signed-out=1');
    expectSentToSignIn(await open(a, cookie));
    expectSentToSignIn(await open(b, cookie));
    expect(await storedHashes()).not.toContain(sha256Hex(cookie));
  });

  it('keeps a session across a restart: a replica started after the one that made it stopped still knows it', async () => {
    const first = await startReplica();
    const cookie = await signIn(first);
    expect((await open(first, cookie)).status).toBe(200);
    await first.stop();
    const second = await startReplica();
    const page = await open(second, cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('acme');
  });

  it('refuses an expired session on every replica and sweeps its row when a later session is made', async () => {
    const cookie = await signIn(a);
    try {
      clockOffset = TWELVE_HOURS - 60_000;
      expect((await open(b, cookie)).status).toBe(200);
      clockOffset = TWELVE_HOURS + 1000;
      expectSentToSignIn(await open(a, cookie));
      expectSentToSignIn(await open(b, cookie));
      expect(await storedHashes()).toContain(sha256Hex(cookie));
      await signIn(b);
      expect(await storedHashes()).not.toContain(sha256Hex(cookie));
    } finally {
      clockOffset = 0;
    }
  });

  it('lasts what the session lifetime setting says', async () => {
    const short = await startReplica({ sessionLifetimeMs: 30 * 60_000 });
    const answer = await fetch(`${short.url}/login`, { method: 'POST', body: new URLSearchParams({ token: ADMIN_TOKEN }), redirect: 'manual' });
    const setCookie = answer.headers.getSetCookie().join('\n');
    expect(setCookie).toContain('Max-Age=1800');
    const cookie = /^crm_sync_session=([^;]+);/.exec(setCookie)![1]!;
    try {
      clockOffset = 29 * 60_000;
      expect((await open(a, cookie)).status).toBe(200);
      clockOffset = 30 * 60_000 + 1000;
      expectSentToSignIn(await open(short, cookie));
      expectSentToSignIn(await open(a, cookie));
    } finally {
      clockOffset = 0;
    }
  });

  it('holds no cookie value and no CSRF token in the database, only the SHA-256 of the id and the identity', async () => {
    const cookie = await signIn(a);
    const csrf = await csrfOn(b, cookie);
    const { rows } = await database.pool.query<{ row: string; hash: string; identity: unknown }>(
      "SELECT row_to_json(s)::text AS row, encode(id_hash, 'hex') AS hash, identity FROM console_sessions s",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { row } of rows) {
      expect(row).not.toContain(cookie);
      expect(row).not.toContain(csrf);
      // Nor in another encoding of the same bytes.
      expect(row).not.toContain(Buffer.from(cookie, 'utf8').toString('hex'));
    }
    expect(rows.find((row) => row.hash === sha256Hex(cookie))?.identity).toEqual({ via: 'token', role: 'admin' });
  });

  it("refuses to start a console told nowhere to keep its sessions (memory is chosen by name, never by default)", async () => {
    await expect(startAdminServer({ host: '127.0.0.1', port: 0, token: ADMIN_TOKEN, metrics: createSyncMetrics(), console: consoleDeps })).rejects.toThrow(
      "The admin server's console needs somewhere to keep its sessions: sessionStorage { postgres: pool } (or 'memory', for a server without a database)",
    );
  });

  it('finds on B a sign-in started on A until its ten minutes are up, then refuses it as stale and sweeps what expired', async () => {
    /** Starts a sign-in on A as a browser would: its cookie, and the state it sent the provider. */
    const start = async () => {
      const answer = await fetch(`${a.url}/auth/sign-in?next=/`, { redirect: 'manual' });
      expect(answer.status).toBe(303);
      const cookie = /^crm_sync_sign_in=([^;]+);/.exec(answer.headers.getSetCookie().join('\n'))![1]!;
      return { cookie, state: new URL(answer.headers.get('location')!).searchParams.get('state')! };
    };
    const callbackOnB = (started: { cookie: string; state: string }) =>
      fetch(`${b.url}/auth/callback?code=not-a-real-code&state=${started.state}`, { headers: { cookie: `crm_sync_sign_in=${started.cookie}` }, redirect: 'manual' });
    const pendingHashes = async () => (await database.pool.query<{ hash: string }>("SELECT encode(id_hash, 'hex') AS hash FROM oidc_pending_sign_ins")).rows.map((row) => row.hash);

    // Found on B: it goes on to the provider, which refuses the made-up code (not "stale").
    const fresh = await start();
    const found = await callbackOnB(fresh);
    expect(found.status).toBe(400);
    expect(await found.text()).toContain('The identity provider did not sign you in: ');
    expect(await pendingHashes()).not.toContain(sha256Hex(fresh.cookie)); // used once

    const late = await start();
    try {
      clockOffset = 10 * 60_000 + 1000;
      const stale = await callbackOnB(late);
      expect(stale.status).toBe(400);
      expect(await stale.text()).toContain('This sign-in link is stale or was opened in another browser: start again from the sign-in page.');

      const expired = await start();
      clockOffset = 2 * (10 * 60_000 + 1000);
      expect(await pendingHashes()).toContain(sha256Hex(expired.cookie));
      await start();
      expect(await pendingHashes()).not.toContain(sha256Hex(expired.cookie));
    } finally {
      clockOffset = 0;
    }
  });

  it.skipIf(Boolean(chromiumMissing))('signs a person in through the identity provider when the sign-in starts on A and the callback lands on B', async () => {
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${a.url}/connections/${connectionId}`);
      expect(page.url()).toBe(`${a.url}/login?next=${encodeURIComponent(`/connections/${connectionId}`)}`);
      await page.getByRole('link', { name: `Sign in with ${new URL(provider.issuer).host}` }).click();
      await page.waitForURL((url) => url.href.startsWith(provider.issuer));

      // Waiting at the provider: the sign-in is in the database, by the hash of its cookie, without it.
      const pendingCookie = (await page.context().cookies(`${a.url}/auth/callback`)).find((entry) => entry.name === 'crm_sync_sign_in')!.value;
      const pending = await database.pool.query<{ row: string; next_path: string }>(
        "SELECT row_to_json(p)::text AS row, next_path FROM oidc_pending_sign_ins p WHERE id_hash = decode($1, 'hex')",
        [sha256Hex(pendingCookie)],
      );
      expect(pending.rows.map((row) => row.next_path)).toEqual([`/connections/${connectionId}`]);
      expect(pending.rows[0]!.row).not.toContain(pendingCookie);
      const everyPending = (await database.pool.query<{ row: string }>('SELECT row_to_json(p)::text AS row FROM oidc_pending_sign_ins p')).rows;
      for (const { row } of everyPending) expect(row).not.toContain(pendingCookie);

      await page.locator('input[name=login]').fill('ada');
      await page.locator('input[name=password]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      // B finished what A started, and sent the browser on to the page it first asked for.
      await page.waitForURL(`${b.url}/connections/${connectionId}`);
      expect(await page.locator('#signed-in-as').textContent()).toBe('Ada Admin admin');
      // The sign-in was used once: it is no longer pending.
      expect((await database.pool.query("SELECT 1 FROM oidc_pending_sign_ins WHERE id_hash = decode($1, 'hex')", [sha256Hex(pendingCookie)])).rowCount).toBe(0);

      // The session B made opens A's pages too.
      const session = (await page.context().cookies(b.url)).find((entry) => entry.name === 'crm_sync_session')!.value;
      const onA = await open(a, session);
      expect(onA.status).toBe(200);
      expect(await onA.text()).toContain('Ada Admin');
      const { rows } = await database.pool.query<{ identity: unknown }>("SELECT identity FROM console_sessions WHERE id_hash = decode($1, 'hex')", [sha256Hex(session)]);
      expect(rows).toEqual([{ identity: { via: 'oidc', role: 'admin', person: { subject: 'ada', name: 'Ada Admin', email: 'ada@example.com' } } }]);
    } finally {
      await browser.close();
    }
  });
});
