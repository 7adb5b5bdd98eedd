// Signing in to the console through an identity provider, in headless Chromium: a real OpenID Connect
// provider (oidc-provider, test/support/oidc-provider.ts) on loopback, the admin server against a real
// PostgreSQL with one connection. People in the viewer, operator and admin groups sign in through the
// provider's own login form; each is shown in the header with their role, sees only the buttons their
// role can use, and is allowed or refused (403, naming the role needed) on a retry and on a mapping
// change. Someone in no group gets a page saying so and no session. Signing out ends the session on the
// server; a session outlives its short ID token and lasts, like a local sign-in, its 12 hours, then sends
// the browser back to sign in (the sessions' clock is moved, nothing waits).
// The admin token keeps admin rights for scripts. The client secret never reaches the browser.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

const ADMIN_TOKEN = `oidc-console-token-${randomBytes(12).toString('hex')}`;
const CONNECTION_SECRET = `commerce-secret-${randomBytes(12).toString('hex')}`;
const PEOPLE = {
  vera: { name: 'Vera Viewer', email: 'vera@example.com', groups: ['sales'] },
  otto: { name: 'Otto Operator', email: 'otto@example.com', groups: ['sales', 'revops'] },
  ada: { name: 'Ada Admin', email: 'ada@example.com', groups: ['crm-admins'] },
  nina: { name: 'Nina Nobody', email: 'nina@example.com', groups: ['marketing'] },
};
const TWELVE_HOURS = 12 * 3600_000;
// Keycloak's default: a session bound to the ID token would end every five minutes.
const SHORT_ID_TOKEN_SECONDS = 300;

if (chromiumMissing) console.warn(chromiumMissing);

describe.skipIf(Boolean(chromiumMissing))('console sign-in through an OpenID Connect provider, in headless Chromium', () => {
  let database: TestDatabase;
  let provider: TestOidcProvider;
  let admin: AdminServer;
  let browser: Browser;
  let connectionId = '';
  // The sessions' clock: moved forward to see a session end, without waiting for it.
  let clockOffset = 0;
  const seen: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const connections = createConnectionStore(database.pool, new SecretBox(randomBytes(32)));
    connectionId = (
      await connections.create({
        name: 'acme',
        crmKind: 'salesforce',
        settings: {
          commerce: { baseUrl: 'https://commerce.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
          crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 's' },
          entities: ['offer'],
        },
        // The mapping routes make the connection's clients (nothing here calls them).
        secrets: { commerceClientSecret: CONNECTION_SECRET, crmClientSecret: CONNECTION_SECRET, crmRefreshToken: CONNECTION_SECRET },
      })
    ).id;
    provider = await startOidcProvider(PEOPLE, { idTokenSeconds: SHORT_ID_TOKEN_SECONDS });
    admin = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: ADMIN_TOKEN,
      metrics: createSyncMetrics({ pool: database.pool }),
      // Nothing here reaches Temporal: a retry with no open dead letter answers from PostgreSQL.
      console: { pool: database.pool, connections, temporal: () => Promise.reject(new Error('no Temporal in this test')), taskQueue: 'unused' },
      sessionStorage: { postgres: database.pool },
      oidc: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        scopes: ['openid', 'profile', 'email', 'groups'],
        rolesClaim: 'groups',
        groups: { admin: ['crm-admins'], operator: ['revops'], viewer: ['sales'] },
      },
      clock: () => Date.now() + clockOffset,
    });
    await provider.register(admin.oidcRedirectUrl!);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.stop();
    await provider?.stop();
    await database?.drop();
  });

  /** A fresh browser (no provider session left from someone else) signed in as `who` through the provider's form; what the console answers it is kept in `into`. */
  async function signInAs(who: keyof typeof PEOPLE, into: string[] = seen): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('response', async (answer) => {
      if (answer.url().startsWith(admin.url)) into.push(await answer.text().catch(() => ''));
    });
    await page.goto(`${admin.url}/connections/${connectionId}`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByRole('link', { name: `Sign in with ${new URL(provider.issuer).host}` }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name=login]').fill(who);
    await page.locator('input[name=password]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    return page;
  }

  const csrfOf = (page: Page) => page.locator('form.signout input[name=csrf]').getAttribute('value');
  const post = async (page: Page, path: string, form: Record<string, string>) =>
    page.request.post(`${admin.url}${path}`, { form: { csrf: (await csrfOf(page))!, ...form }, maxRedirects: 0 });
  // The mapping page's two changes (admin/console/mapping-routes.ts): saving (or testing) a flow's mapping, and rolling it back.
  const mappingSave = () => `/connections/${connectionId}/mappings/offer`;
  const mappingRollback = () => `/connections/${connectionId}/mappings/offer/rollback`;

  it('signs a viewer in: named in the header, no retry or backfill buttons, a retry refused with 403 naming the operator role', async () => {
    const page = await signInAs('vera');
    // Back on the page asked for before signing in.
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    expect(await page.locator('#signed-in-as').textContent()).toBe('Vera Viewer viewer');
    expect(await page.locator('form[action$="/backfill"]').count()).toBe(0);
    expect(await page.locator('#backfill').textContent()).toContain('Starting a backfill needs the operator role');
    const cookie = (await page.context().cookies()).find((entry) => entry.name === 'crm_sync_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    const retry = await post(page, `/connections/${connectionId}/retry`, { entity: 'offer' });
    expect(retry.status()).toBe(403);
    expect(await retry.text()).toContain('Retrying dead letters needs the operator role; Vera Viewer has the viewer role.');
    for (const [path, form] of [[mappingSave(), { action: 'save' }], [mappingRollback(), { version: '1' }]] as const) {
      const change = await post(page, path, form);
      expect(change.status(), path).toBe(403);
      expect(await change.text(), path).toContain('Changing settings needs the admin role; Vera Viewer has the viewer role.');
    }
    // Reads stay open: the mapping in effect.
    const read = await page.request.get(`${admin.url}/connections/${connectionId}/mapping`);
    expect(read.status()).toBe(200);
    expect(await read.text()).toContain('acme');
  });

  it('signs an operator in: a retry is allowed, a mapping or connection change refused with 403 naming the admin role', async () => {
    const page = await signInAs('otto');
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    expect(await page.locator('#signed-in-as').textContent()).toBe('Otto Operator operator');
    expect(await page.locator('form[action$="/backfill"]').count()).toBe(1);

    const retry = await post(page, `/connections/${connectionId}/retry`, { entity: 'offer' });
    expect(retry.status()).toBe(303);
    await page.goto(`${admin.url}/connections/${connectionId}`);
    expect(await page.locator('.flash').textContent()).toContain('No open dead letters (entity offer) for acme: nothing to retry');

    for (const [path, form] of [[mappingSave(), { action: 'save' }], [mappingSave(), { action: 'test', record: 'offer-1' }], [mappingRollback(), { version: '1' }]] as const) {
      const change = await post(page, path, form);
      expect(change.status(), path).toBe(403);
      expect(await change.text(), path).toContain('Changing settings needs the admin role; Otto Operator has the operator role.');
    }
  });

  it('signs an admin in: the retry and the mapping rollback reach their routes', async () => {
    const page = await signInAs('ada');
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    expect(await page.locator('#signed-in-as').textContent()).toBe('Ada Admin admin');
    expect((await post(page, `/connections/${connectionId}/retry`, { entity: 'offer' })).status()).toBe(303);
    // The rollback route's own answer to a version that cannot be: past the permission check, nothing changed.
    const rollback = await post(page, mappingRollback(), { version: '0' });
    expect(rollback.status()).toBe(400);
    expect(await rollback.text()).toContain('Choose a version to roll back to.');
  });

  it('refuses someone in none of the groups with a page saying so, and gives no session', async () => {
    const page = await signInAs('nina');
    await page.waitForURL((url) => url.pathname === '/auth/callback');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No access to this console');
    const alert = await page.getByRole('alert').textContent();
    expect(alert).toContain('signed you in as Nina Nobody (nina@example.com), but you are in none of the groups that may use this console: crm-admins, revops, sales');
    expect((await page.context().cookies()).find((entry) => entry.name === 'crm_sync_session')).toBeUndefined();
    await page.goto(`${admin.url}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it("says so when the person cancels at the provider, and refuses a callback that no sign-in of this browser started", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${admin.url}/login`);
    await page.getByRole('link', { name: /^Sign in with / }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page.waitForURL((url) => url.pathname === '/auth/callback');
    expect(await page.getByRole('alert').textContent()).toBe('The identity provider did not sign you in: End-User aborted interaction (access_denied)');
    expect((await page.context().cookies()).find((entry) => entry.name === 'crm_sync_session')).toBeUndefined();

    // A code and state pasted from elsewhere (no sign-in cookie): no session, whatever they hold.
    const forged = await fetch(`${admin.url}/auth/callback?code=stolen&state=guessed`, { redirect: 'manual' });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('set-cookie')).not.toContain('crm_sync_session=');
    expect(await forged.text()).toContain('This sign-in link is stale or was opened in another browser: start again from the sign-in page.');
  });

  it("gives no session to a callback that carries this browser's sign-in cookie but another state", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${admin.url}/login`);
    await page.getByRole('link', { name: /^Sign in with / }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    const pending = (await page.context().cookies(`${admin.url}/auth/callback`)).find((entry) => entry.name === 'crm_sync_sign_in');
    expect(pending?.value).toMatch(/^[\w-]{43}$/); // 32 random bytes: the PKCE verifier is derived from them
    const answer = await fetch(`${admin.url}/auth/callback?code=some-code&state=not-the-state-sent`, { headers: { cookie: `crm_sync_sign_in=${pending!.value}` }, redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('set-cookie')).not.toContain('crm_sync_session=');
    const text = await answer.text();
    expect(text).toContain('The identity provider did not sign you in: invalid response encountered');
  });

  it('signs out: the session ends on the server, not only in the browser', async () => {
    const page = await signInAs('otto');
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    const cookie = (await page.context().cookies()).find((entry) => entry.name === 'crm_sync_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(await page.getByRole('status').textContent()).toBe('You are signed out of the console.');
    // The old cookie, sent again by hand, opens nothing.
    const replayed = await fetch(`${admin.url}/connections/${connectionId}`, { headers: { cookie: `crm_sync_session=${cookie.value}` }, redirect: 'manual' });
    expect(replayed.status).toBe(303);
    expect(replayed.headers.get('location')).toMatch(/^\/login\?/);
  });

  /** Moves the sessions' clock to `offset` ms ahead and opens the connection page: where does the browser land? */
  async function openAt(page: Page, offset: number): Promise<URL> {
    clockOffset = offset;
    await page.goto(`${admin.url}/connections/${connectionId}`);
    return new URL(page.url());
  }

  it("keeps a person's session past their ID token (five minutes at this provider, as at Keycloak) until the session lifetime, then sends the browser back to sign in", async () => {
    const page = await signInAs('vera');
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    try {
      expect((await openAt(page, (SHORT_ID_TOKEN_SECONDS + 60) * 1000)).pathname).toBe(`/connections/${connectionId}`); // the ID token long gone
      expect((await openAt(page, TWELVE_HOURS - 60_000)).pathname).toBe(`/connections/${connectionId}`); // a minute left
      const url = await openAt(page, TWELVE_HOURS + 1000);
      expect(url.pathname).toBe('/login');
      expect(url.searchParams.get('next')).toBe(`/connections/${connectionId}`);
      expect(await page.getByRole('status').textContent()).toBe('Your session has ended: sign in again.');
    } finally {
      clockOffset = 0;
    }
  });

  it('ends a local sign-in (the admin token typed on the sign-in page) after its 12 hours', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${admin.url}/`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${admin.url}/`);
    expect(await page.locator('#signed-in-as').textContent()).toBe('admin token admin');
    try {
      expect((await openAt(page, TWELVE_HOURS - 60_000)).pathname).toBe(`/connections/${connectionId}`);
      expect((await openAt(page, TWELVE_HOURS + 1000)).pathname).toBe('/login');
    } finally {
      clockOffset = 0;
    }
  });

  it('keeps the admin token for scripts, with admin rights; local sign-in stays offered beside the provider', async () => {
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await fetch(`${admin.url}/metrics`, { headers: bearer })).status).toBe(200);
    const change = await fetch(`${admin.url}/connections/${connectionId}/retry`, { method: 'POST', headers: bearer, body: new URLSearchParams({ entity: 'offer' }), redirect: 'manual' });
    expect(change.status).toBe(303);
    const login = await (await fetch(`${admin.url}/login`)).text();
    expect(login).toContain(`Sign in with ${new URL(provider.issuer).host}`);
    expect(login).toContain('Local sign-in');
  });

  it("never sends the client secret, the admin token or the connection's secret to the browser", async () => {
    // Its own pages first, so the check never rests on which other tests ran before it.
    const own: string[] = [];
    const page = await signInAs('ada', own);
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    await page.goto(`${admin.url}/connections/${connectionId}/mapping`);
    await page.goto(`${admin.url}/login`);
    // The provider's login form, the callback, the connection page, the mapping page, the login page.
    expect(own.length).toBeGreaterThanOrEqual(5);
    for (const body of [...own, ...seen]) {
      expect(body).not.toContain(provider.clientSecret);
      expect(body).not.toContain(ADMIN_TOKEN);
      expect(body).not.toContain(CONNECTION_SECRET);
    }
  });
});
