// The identity provider's settings and the pieces of sign-in that need no provider: the environment
// read and checked (each mistake named by its variable), the client secret found, a person's role from
// their groups claim, the audit actor of a request, local sign-in turned off, and sign-ins started
// against a provider that is down (its discovery not asked again on every one, starts throttled per address).
import { mkdtempSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rememberIdentity, requestActor } from '../../admin/actor.ts';
import type { ConsoleDeps } from '../../admin/console/routes.ts';
import { checkRedirectSetting, claimValues, resolveOidcClientSecret, roleOf } from '../../admin/oidc.ts';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { loadConfig } from '../../config/config.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

const OIDC = { CRM_SYNC_OIDC_ISSUER: 'https://login.example.com/realms/acme', CRM_SYNC_OIDC_CLIENT_ID: 'crm-sync' };

describe('the identity provider settings', () => {
  it('are read with their defaults, group lists split on commas', () => {
    const { admin } = loadConfig({ ...OIDC, CRM_SYNC_OIDC_ADMIN_GROUPS: 'crm-admins, it ', CRM_SYNC_OIDC_OPERATOR_GROUPS: 'revops', CRM_SYNC_OIDC_CLIENT_SECRET: 's3cret' }, false);
    expect(admin.oidc).toEqual({
      issuer: 'https://login.example.com/realms/acme',
      clientId: 'crm-sync',
      clientSecret: 's3cret',
      scopes: ['openid', 'profile', 'email'],
      rolesClaim: 'groups',
      groups: { admin: ['crm-admins', 'it'], operator: ['revops'], viewer: [] },
    });
    expect(admin.localSignIn).toBe(true);
    expect(admin.sessionLifetimeMs).toBe(12 * 3600_000);
  });

  it('are absent without an issuer, and the session lifetime and local sign-in are settings', () => {
    const { admin } = loadConfig({ ...OIDC, CRM_SYNC_ADMIN_LOCAL_SIGN_IN: 'off', CRM_SYNC_ADMIN_SESSION_LIFETIME: '30m' }, false);
    expect(admin.localSignIn).toBe(false);
    expect(admin.sessionLifetimeMs).toBe(30 * 60_000);
    expect(loadConfig({}, false).admin.oidc).toBeUndefined();
  });

  it.each([
    [{ CRM_SYNC_OIDC_ISSUER: 'https://login.example.com' }, /CRM_SYNC_OIDC_CLIENT_ID: expected the client id .* whenever CRM_SYNC_OIDC_ISSUER is set; it is not set/],
    [{ CRM_SYNC_OIDC_CLIENT_ID: 'crm-sync' }, /CRM_SYNC_OIDC_ISSUER: expected the identity provider's issuer URL whenever CRM_SYNC_OIDC_CLIENT_ID is set; it is not set/],
    [{ ...OIDC, CRM_SYNC_OIDC_ISSUER: 'http://login.example.com' }, /CRM_SYNC_OIDC_ISSUER: expected an https:\/\/ URL \(plain http only for a provider on this machine\); got "http:\/\/login.example.com"/],
    [{ ...OIDC, CRM_SYNC_OIDC_ISSUER: 'login.example.com' }, /CRM_SYNC_OIDC_ISSUER: expected a URL such as https:\/\/login.example.com\/realms\/acme/],
    [{ ...OIDC, CRM_SYNC_OIDC_SCOPES: 'profile email' }, /CRM_SYNC_OIDC_SCOPES: expected a list of scopes that includes openid; got "profile email"/],
    [{ CRM_SYNC_ADMIN_LOCAL_SIGN_IN: 'off' }, /CRM_SYNC_ADMIN_LOCAL_SIGN_IN: "off" needs CRM_SYNC_OIDC_ISSUER/],
    [{ CRM_SYNC_ADMIN_SESSION_LIFETIME: '8 hours' }, /CRM_SYNC_ADMIN_SESSION_LIFETIME: expected a duration such as 30m or 8h; got "8 hours"/],
  ])('refuse %j naming the variable', (env, message) => {
    expect(() => loadConfig(env, false)).toThrow(message);
  });

  it('accept plain http for a provider on this machine only', () => {
    expect(loadConfig({ ...OIDC, CRM_SYNC_OIDC_ISSUER: 'http://127.0.0.1:8080' }, false).admin.oidc?.issuer).toBe('http://127.0.0.1:8080');
  });

  it('find the client secret in the environment, else in the data directory, else say where to put it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'oidc-secret-'));
    expect(() => resolveOidcClientSecret(undefined, dataDir)).toThrow(`CRM_SYNC_OIDC_CLIENT_SECRET: expected the client secret the identity provider gave this console whenever CRM_SYNC_OIDC_ISSUER is set (or write it into ${path.join(dataDir, 'oidc-client-secret')}`);
    writeFileSync(path.join(dataDir, 'oidc-client-secret'), 'from-the-file\n', { mode: 0o600 });
    expect(resolveOidcClientSecret(undefined, dataDir)).toBe('from-the-file');
    expect(resolveOidcClientSecret('from-the-environment', dataDir)).toBe('from-the-environment');
  });

  it('need the redirect URL when the admin server listens on every address', () => {
    expect(() => checkRedirectSetting(undefined, '0.0.0.0')).toThrow(/CRM_SYNC_OIDC_REDIRECT_URL: expected the console's \/auth\/callback address .* when the admin server listens on 0.0.0.0; it is not set/);
    expect(() => checkRedirectSetting(undefined, '127.0.0.1')).not.toThrow();
    expect(() => checkRedirectSetting('https://crm-sync.example.com/auth/callback', '::')).not.toThrow();
  });
});

describe("a person's role", () => {
  const groups = { admin: ['crm-admins'], operator: ['revops'], viewer: ['sales', 'finance'] };

  it('is the highest their groups give, or none', () => {
    expect(roleOf(['sales', 'revops'], groups)).toBe('operator');
    expect(roleOf(['finance', 'crm-admins', 'revops'], groups)).toBe('admin');
    expect(roleOf(['finance'], groups)).toBe('viewer');
    expect(roleOf(['marketing'], groups)).toBeUndefined();
    expect(roleOf([], groups)).toBeUndefined();
    // Names are matched exactly: a group called "admin" is not the admin role when lists are configured.
    expect(roleOf(['admin'], groups)).toBeUndefined();
  });

  it('is read from role names in the claim when no group lists are configured', () => {
    const none = { admin: [], operator: [], viewer: [] };
    expect(roleOf(['operator', 'something-else'], none)).toBe('operator');
    expect(roleOf(['crm-admins'], none)).toBeUndefined();
  });

  it('comes from a list, a string of names, or a dotted path into the claims', () => {
    expect(claimValues({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(claimValues({ roles: 'viewer operator' }, 'roles')).toEqual(['viewer', 'operator']);
    expect(claimValues({ realm_access: { roles: ['admin'] } }, 'realm_access.roles')).toEqual(['admin']);
    expect(claimValues({ sub: 'x' }, 'groups')).toBeUndefined();
  });
});

describe('the audit actor of a request', () => {
  it('is the person for a sign-in through the provider, "token" for the admin token, and an error for a request never signed in', () => {
    const person = {} as IncomingMessage;
    rememberIdentity(person, { via: 'oidc', role: 'operator', person: { subject: 's-1', name: 'Otto Operator', email: 'otto@example.com' } });
    expect(requestActor(person)).toEqual({ kind: 'person', name: 'Otto Operator', email: 'otto@example.com' });
    const script = {} as IncomingMessage;
    rememberIdentity(script, { via: 'token', role: 'admin' });
    expect(requestActor(script)).toEqual({ kind: 'token' });
    expect(() => requestActor({} as IncomingMessage)).toThrow(/not signed in/);
  });
});

describe('local sign-in turned off', () => {
  const TOKEN = 'local-sign-in-test-token-0123456789ab';
  let admin: AdminServer | undefined;
  const after: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await admin?.stop();
    admin = undefined;
    for (const stop of after.splice(0)) await stop();
  });

  it('offers only the identity provider and refuses the admin token on the sign-in form, while scripts keep their bearer token', async () => {
    admin = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      metrics: createSyncMetrics(),
      console: {} as ConsoleDeps,
      sessionStorage: 'memory',
      // Never reached: the provider is discovered on the first sign-in through it.
      oidc: { issuer: 'https://login.example.com', clientId: 'crm-sync', clientSecret: 'never-sent', scopes: ['openid'], rolesClaim: 'groups', groups: { admin: ['a'], operator: [], viewer: [] } },
      localSignIn: false,
    });
    const page = await (await fetch(`${admin.url}/login`)).text();
    expect(page).toContain('Sign in with login.example.com');
    expect(page).not.toContain('name="token"');
    expect(page).not.toContain('never-sent');
    const typed = await fetch(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }), redirect: 'manual' });
    expect(typed.status).toBe(403);
    expect(typed.headers.get('set-cookie')).toBeNull();
    expect(await typed.text()).toBe('Local sign-in with the admin token is turned off (CRM_SYNC_ADMIN_LOCAL_SIGN_IN=off): sign in with login.example.com at /login\n');
    expect((await fetch(`${admin.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(admin.oidcRedirectUrl).toBe(`${admin.url}/auth/callback`);
  });

  /** A provider that is down: it keeps its port (nothing else can take it) and answers every request 503, counting them. */
  async function downProvider() {
    let requests = 0;
    const server = http.createServer((_request, response) => {
      requests++;
      response.writeHead(503).end('down for maintenance\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    after.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
  }

  const withIssuer = (issuer: string, extra: Partial<Parameters<typeof startAdminServer>[0]> = {}) =>
    startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      metrics: createSyncMetrics(),
      console: {} as ConsoleDeps,
      sessionStorage: 'memory',
      oidc: { issuer, clientId: 'crm-sync', clientSecret: 'never-sent', scopes: ['openid'], rolesClaim: 'groups', groups: { admin: ['a'], operator: [], viewer: [] } },
      ...extra,
    });

  it('tells the person when the identity provider cannot be reached, naming it', async () => {
    const down = await downProvider();
    admin = await withIssuer(down.issuer);
    const answer = await fetch(`${admin.url}/auth/sign-in?next=/`, { redirect: 'manual' });
    expect(answer.status).toBe(502);
    const page = await answer.text();
    expect(page).toContain(`The identity provider at ${down.issuer} could not be reached or is not an OpenID Connect provider`);
    expect(page).not.toContain('never-sent');
  });

  it('asks a provider that is down again only after a pause, not on every sign-in', async () => {
    const down = await downProvider();
    let now = 1_000_000;
    admin = await withIssuer(down.issuer, { clock: () => now });
    for (let attempt = 1; attempt <= 3; attempt++) expect((await fetch(`${admin.url}/auth/sign-in?next=/`, { redirect: 'manual' })).status, `attempt ${attempt}`).toBe(502);
    expect(down.requests()).toBe(1);
    now += 30_000;
    expect((await fetch(`${admin.url}/auth/sign-in?next=/`, { redirect: 'manual' })).status).toBe(502);
    expect(down.requests()).toBe(2);
  });

  it('throttles sign-ins started from one address: the 21st within a minute is answered 429 with Retry-After', async () => {
    const down = await downProvider();
    admin = await withIssuer(down.issuer);
    for (let attempt = 1; attempt <= 20; attempt++) expect((await fetch(`${admin.url}/auth/sign-in?next=/`, { redirect: 'manual' })).status, `attempt ${attempt}`).toBe(502);
    const refused = await fetch(`${admin.url}/auth/sign-in?next=/`, { redirect: 'manual' });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await refused.text()).toMatch(/^Too many sign-ins started from this address: try again in \d+ seconds\.\n$/);
    expect(down.requests()).toBe(1);
    // The sign-in page itself stays open, and so does local sign-in.
    expect((await fetch(`${admin.url}/login`)).status).toBe(200);
  });
});
