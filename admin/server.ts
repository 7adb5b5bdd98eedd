// The worker's admin HTTP server, on its own port and bound to loopback unless told otherwise. Nothing
// is answered to a stranger but the probes /healthz and /readyz (admin/health.ts: JSON of fixed words,
// nothing secret): every other request carries the admin token as a bearer token (scripts, Prometheus;
// admin rights) or a console session's cookie. A session is bought by signing in through the
// organization's identity provider (OpenID Connect, admin/oidc.ts: the person and the role their groups
// give) or, unless turned off, locally with the admin token typed once (admin rights). Every signed-in
// request is checked against the permission table (admin/permissions.ts) before it is routed; a refusal
// names the role needed. The session cookie is HttpOnly and SameSite=Strict, and every form carries the
// session's CSRF token. Sessions and OIDC sign-ins in progress live where `sessionStorage` says: in
// PostgreSQL for `crm-sync start` and `worker` (any replica serves any session, a restart keeps them), or,
// named so, in this process's memory. Over TLS when given a certificate and key (then the cookies are Secure); forms are
// read up to 64 KiB; failed token sign-ins (on the form or as a wrong bearer token) are throttled per client address. Serves /metrics in
// Prometheus' text format (the sync's own and, when the Temporal SDK runtime exports its metrics on a
// local port, those too) and the web console. Nothing it answers holds a connection's secrets.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type pg from 'pg';
import type { SyncMetrics } from '../metrics/sync-metrics.ts';
import { createPostgresSessionStore } from '../store/console-sessions.ts';
import { createPostgresPendingSignIns } from '../store/oidc-pending-sign-ins.ts';
import { redactText } from '../store/redact.ts';
import { rememberIdentity } from './actor.ts';
import { messagePage } from './console/pages.ts';
import { consoleRoute, type ConsoleDeps } from './console/routes.ts';
import {
  createMemorySessionStore,
  endSessionCookie,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
  TOKEN_IDENTITY,
  type Session,
  type SessionIdentity,
  type SessionStore,
} from './console/sessions.ts';
import { noRolePage, signedInPage, signInFailedPage, signInPage, type LoginOptions } from './console/sign-in-pages.ts';
import { HttpError, readLimitedBody } from './form-body.ts';
import { answerHealth, type ReadinessProbe } from './health.ts';
import { CALLBACK_PATH, createMemoryPendingSignIns, createOidcSignIn, endSignInCookie, SIGN_IN_COOKIE, signInCookie, SignInFailed, START_PATH, type OidcSettings, type OidcSignIn } from './oidc.ts';
import { permissionFor, roleIncludes } from './permissions.ts';
import { safeNext } from './safe-next.ts';
import { createSignInThrottle, type SignInThrottle } from './sign-in-throttle.ts';
import { tokenMatches } from './token.ts';

export type AdminServerOptions = {
  host: string;
  port: number;
  token: string;
  metrics: SyncMetrics;
  /** The Temporal SDK runtime's Prometheus endpoint (Runtime telemetry), appended to /metrics. */
  temporalMetricsUrl?: string;
  /** The web console's reads and actions; without them only /metrics is served. */
  console?: ConsoleDeps;
  /**
   * Where the console's sessions and OIDC sign-ins in progress live; required with `console`. PostgreSQL
   * (the project's database, migration 0012) for every real deployment: replicas behind a load balancer
   * share them and a restart keeps them. 'memory' only where there is no database (tests): this process
   * alone, and a restart signs everyone out.
   */
  sessionStorage?: { postgres: pg.Pool } | 'memory';
  /** PEM certificate (chain) and private key: serve HTTPS, and mark the session cookie Secure. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Failed sign-ins per client address (default: 5 a minute). */
  signInThrottle?: SignInThrottle;
  /** Sign-ins through the identity provider started per client address (default: 20 a minute). */
  signInStartThrottle?: SignInThrottle;
  /** Sign-in through the organization's identity provider; without redirectUrl, this server's own address + /auth/callback. */
  oidc?: Omit<OidcSettings, 'redirectUrl'> & { redirectUrl?: string };
  /** Whether the console's sign-in with the admin token is offered (default: yes; always without oidc). */
  localSignIn?: boolean;
  /** How long a console session lasts (default 12 h), whichever way it signed in: not bound to the ID token's expiry. */
  sessionLifetimeMs?: number;
  /** The sessions' clock (tests move it to see a session end). */
  clock?: () => number;
  /** What GET /readyz checks (PostgreSQL, Temporal, the worker); without it /readyz answers 503. */
  readiness?: ReadinessProbe;
};

const requireFromHere = createRequire(import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  'console.css': { file: path.join(import.meta.dirname, 'console', 'assets', 'console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { file: path.join(import.meta.dirname, 'console', 'assets', 'console.js'), type: 'text/javascript; charset=utf-8' },
  'uPlot.iife.min.js': { file: requireFromHere.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  'uPlot.min.css': { file: requireFromHere.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

const LOGIN_CSP = (nonce: string) => `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
let css: string | undefined;
const loginCss = () => (css ??= readFileSync(ASSETS['console.css']!.file, 'utf8'));

export type AdminServer = { url: string; /** Where the identity provider must send people back (register it there). */ oidcRedirectUrl?: string; stop(): Promise<void> };

type State = { sessions?: SessionStore; throttle: SignInThrottle; startThrottle: SignInThrottle; secure: boolean; oidc?: OidcSignIn; localSignIn: boolean };

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  if (options.console && !options.sessionStorage) {
    throw new Error("The admin server's console needs somewhere to keep its sessions: sessionStorage { postgres: pool } (or 'memory', for a server without a database)");
  }
  const storage = options.console ? options.sessionStorage : undefined;
  const sessionOptions = { clock: options.clock, lifetimeMs: options.sessionLifetimeMs };
  const state: State = {
    sessions: storage && (storage === 'memory' ? createMemorySessionStore(sessionOptions) : createPostgresSessionStore(storage.postgres, sessionOptions)),
    throttle: options.signInThrottle ?? createSignInThrottle(),
    // Every start is counted (none has failed yet): each holds a pending sign-in and may ask the provider.
    startThrottle: options.signInStartThrottle ?? createSignInThrottle({ limit: 20 }),
    secure: Boolean(options.tls),
    // Without an identity provider the token is the only way in, whatever the setting says.
    localSignIn: !options.oidc || options.localSignIn !== false,
  };
  const handle: http.RequestListener = (request, response) => {
    void answer(options, state, request, response).catch((error: Error & { status?: number }) => {
      if (error instanceof HttpError) {
        // A refused request may still be sending (a body past the limit): close instead of reading the rest.
        if (response.headersSent) return void response.destroy();
        return send(response, error.status, `${error.message}\n`, { connection: 'close' });
      }
      if (!response.headersSent) response.writeHead(error.status ?? 500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`The admin server failed: ${redactText(error.message)}\n`);
    });
  };
  const server = options.tls ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, handle) : http.createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `${options.tls ? 'https' : 'http'}://${host}:${port}`;
  if (options.oidc) {
    // Sign-ins happen on the console's pages only: without a console, nothing keeps their pending state.
    const pending = storage === undefined || storage === 'memory' ? createMemoryPendingSignIns(options.clock) : createPostgresPendingSignIns(storage.postgres, options.clock);
    state.oidc = createOidcSignIn({ ...options.oidc, redirectUrl: options.oidc.redirectUrl ?? `${url}${CALLBACK_PATH}` }, pending, options.clock);
  }
  return {
    url,
    ...(state.oidc && { oidcRedirectUrl: state.oidc.redirectUrl }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: http.ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on form posts.
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    // Only this server's own scripts and styles; nothing inline can run.
    'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ...headers,
  });
  response.end(body);
}

function tooManyFailures(response: http.ServerResponse, wait: number): void {
  send(response, 429, `Too many failed sign-ins from this address: try again in ${wait} seconds.\n`, { 'retry-after': String(wait) });
}

async function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams(await readLimitedBody(request));
}

/** A form posted from another site (its Origin names another host) is refused whatever it carries. */
function sameOrigin(request: http.IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

async function answer(options: AdminServerOptions, state: State, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const { sessions, secure } = state;
  const url = new URL(request.url ?? '/', 'http://admin');
  const method = request.method ?? 'GET';
  const html = { 'content-type': 'text/html; charset=utf-8' };

  // Probes carry no token (an orchestrator has none to give) and learn nothing secret.
  const probed = answerHealth(url.pathname, method, options.readiness, response);
  if (probed !== false) return void (await probed);

  if (options.console && (url.pathname === '/login' || url.pathname === START_PATH || url.pathname === CALLBACK_PATH)) {
    const handled = await signIn(options, state, request, response, url, method);
    if (handled) return;
  }

  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) {
    // A bearer token is a sign-in like the form's, throttled alike: an address past its failures waits
    // before its token is even compared, the right one too (a script sharing an address with a guesser,
    // behind a proxy, waits with it). A right token does not clear the count: a scraper every few seconds
    // would otherwise reset a guesser's failures.
    const client = request.socket.remoteAddress ?? 'unknown';
    const wait = state.throttle.retryAfter(client);
    if (wait !== undefined) return tooManyFailures(response, wait);
    if (!tokenMatches(options.token, bearer)) {
      state.throttle.failed(client);
      return send(response, 401, 'The admin server refused this bearer token: it is not the admin token (printed at start, and kept in the data directory\'s admin-token)\n', {
        'www-authenticate': 'Bearer realm="crm-sync", error="invalid_token"',
      });
    }
  }
  const byBearer = bearer !== undefined;
  const cookieId = readCookie(request.headers.cookie, SESSION_COOKIE);
  const cookieSession = options.console ? await sessions!.get(cookieId) : undefined;
  if (!byBearer && !cookieSession) {
    const wantsPage = options.console && method === 'GET' && !url.pathname.startsWith('/api/') && url.pathname !== '/metrics' && !url.pathname.startsWith('/assets/');
    // A cookie that no longer opens a session: it ran out (or the worker restarted).
    if (wantsPage) return send(response, 303, '', { location: `/login?${cookieId ? 'expired=1&' : ''}next=${encodeURIComponent(url.pathname + url.search)}` });
    return send(response, 401, "The admin server needs its token: Authorization: Bearer <token> (printed at start, and kept in the data directory's admin-token), or sign in to the console at /login\n", {
      'www-authenticate': 'Bearer realm="crm-sync"',
    });
  }
  // A bearer request has no cookie to forge, so it needs no CSRF token; a session's forms must carry theirs.
  const session: Session = byBearer ? { id: '', csrf: randomBytes(16).toString('base64url'), expiresAt: 0, identity: TOKEN_IDENTITY } : cookieSession!;
  rememberIdentity(request, session.identity);
  let form: URLSearchParams | undefined;
  if (method === 'POST') {
    form = await readForm(request);
    if (!byBearer && (!sameOrigin(request) || !tokenMatches(session.csrf, form.get('csrf') ?? undefined))) {
      return send(response, 403, 'Refused: this form is stale or came from another site (reload the page and try again)\n');
    }
  }
  // The one permission check, before anything is routed.
  const rule = permissionFor(method, url.pathname);
  if (!roleIncludes(session.identity.role, rule.role)) {
    const why = `${rule.what[0]!.toUpperCase()}${rule.what.slice(1)} needs the ${rule.role} role; ${signedInAs(session.identity)} has the ${session.identity.role} role.`;
    if (url.pathname.startsWith('/api/')) return send(response, 403, JSON.stringify({ error: why, needs: rule.role }), { 'content-type': 'application/json; charset=utf-8' });
    return send(response, 403, messagePage({ csrf: session.csrf, who: session.identity }, 'Not allowed', why), html);
  }

  if (method === 'POST' && url.pathname === '/logout') {
    if (cookieSession) await sessions!.end(cookieSession.id);
    return send(response, 303, '', { location: '/login?signed-out=1', 'set-cookie': endSessionCookie({ secure }) });
  }
  if (method === 'GET' && url.pathname === '/metrics') {
    const own = await options.metrics.registry.metrics();
    const temporal = options.temporalMetricsUrl ? await fetchText(options.temporalMetricsUrl) : '';
    return send(response, 200, temporal ? `${own}\n${temporal}` : own, { 'content-type': options.metrics.registry.contentType });
  }
  const asset = url.pathname.startsWith('/assets/') ? ASSETS[url.pathname.slice('/assets/'.length)] : undefined;
  if (options.console && method === 'GET' && asset) return send(response, 200, readFileSync(asset.file, 'utf8'), { 'content-type': asset.type, 'cache-control': 'private, max-age=300' });
  if (options.console) {
    const flashBefore = session.flash;
    const reply = await consoleRoute(options.console, session, method, url, form);
    // The routes set the flash on a POST and clear it on the next GET, which may reach another replica.
    if (cookieSession && session.flash !== flashBefore) await sessions!.saveFlash(cookieSession.id, session.flash);
    if (reply) return send(response, reply.status, reply.body, { ...(reply.type && { 'content-type': reply.type }), ...reply.headers });
  }
  send(response, 404, `Not found: the admin server answers GET /metrics, /healthz and /readyz${options.console ? ' and the console at /' : ''}\n`);
}

const signedInAs = (identity: SessionIdentity) => (identity.via === 'oidc' ? identity.person.name : 'the admin token');

/** The sign-in routes (answered before a session exists): true when the request was answered. */
async function signIn(options: AdminServerOptions, state: State, request: http.IncomingMessage, response: http.ServerResponse, url: URL, method: string): Promise<boolean> {
  const { sessions, throttle, secure, oidc } = state;
  // These pages are answered before sign-in, so they carry their styles inline (allowed by a nonce).
  const nonce = randomBytes(16).toString('base64');
  const style = { nonce, css: loginCss() };
  const styled = { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': LOGIN_CSP(nonce) };
  const login = (extra: Partial<LoginOptions>) => signInPage({ provider: oidc?.label, local: state.localSignIn, ...extra }, style);

  if (url.pathname === '/login' && method === 'GET') {
    const notice = url.searchParams.has('expired') ? 'expired' : url.searchParams.has('signed-out') ? 'signed-out' : undefined;
    send(response, 200, login({ next: safeNext(url.searchParams.get('next')), notice }), styled);
    return true;
  }
  if (url.pathname === '/login' && method === 'POST') {
    if (!sameOrigin(request)) {
      send(response, 403, 'Refused: the form came from another site\n');
      return true;
    }
    if (!state.localSignIn) {
      send(response, 403, `Local sign-in with the admin token is turned off (CRM_SYNC_ADMIN_LOCAL_SIGN_IN=off): sign in with ${oidc!.label} at /login\n`, { connection: 'close' });
      return true;
    }
    // Behind a reverse proxy every person shares its address: the limit then holds for all of them together.
    const client = request.socket.remoteAddress ?? 'unknown';
    const form = await readForm(request);
    const wait = throttle.retryAfter(client);
    if (wait !== undefined) {
      tooManyFailures(response, wait);
      return true;
    }
    if (!tokenMatches(options.token, form.get('token') ?? undefined)) {
      throttle.failed(client);
      send(response, 401, login({ failed: true, next: safeNext(form.get('next')) }), styled);
      return true;
    }
    throttle.succeeded(client);
    const session = await sessions!.create(TOKEN_IDENTITY);
    send(response, 303, '', { location: safeNext(form.get('next')), 'set-cookie': sessionCookie(session, { secure, now: sessions!.clock() }) });
    return true;
  }
  if (!oidc || method !== 'GET') return false;
  try {
    if (url.pathname === START_PATH) {
      // Open to strangers: unthrottled, a flood of starts would push everyone's sign-in in progress out.
      const client = request.socket.remoteAddress ?? 'unknown';
      const wait = state.startThrottle.retryAfter(client);
      if (wait !== undefined) {
        send(response, 429, `Too many sign-ins started from this address: try again in ${wait} seconds.\n`, { 'retry-after': String(wait) });
        return true;
      }
      state.startThrottle.failed(client);
      const { location, pendingId } = await oidc.begin(safeNext(url.searchParams.get('next')));
      send(response, 303, '', { location, 'set-cookie': signInCookie(pendingId, { secure }) });
      return true;
    }
    const outcome = await oidc.finish(readCookie(request.headers.cookie, SIGN_IN_COOKIE), url.searchParams);
    const done = endSignInCookie({ secure });
    if (!outcome.ok) {
      send(response, 403, noRolePage(outcome.person, oidc.label, outcome.groups, style), { ...styled, 'set-cookie': done });
      return true;
    }
    const session = await sessions!.create({ via: 'oidc', role: outcome.role, person: outcome.person });
    send(response, 200, signedInPage(outcome.person.name, outcome.next, style), { ...styled, 'set-cookie': [sessionCookie(session, { secure, now: sessions!.clock() }), done] });
    return true;
  } catch (error) {
    if (!(error instanceof SignInFailed)) throw error;
    send(response, url.pathname === START_PATH ? 502 : 400, signInFailedPage(error.message, style), { ...styled, 'set-cookie': endSignInCookie({ secure }) });
    return true;
  }
}

/** The SDK's metrics, or a comment saying why they are missing (a scrape never fails for them). */
async function fetchText(url: string): Promise<string> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return answer.ok ? await answer.text() : `# Temporal SDK metrics unavailable: HTTP ${answer.status}\n`;
  } catch (error) {
    return `# Temporal SDK metrics unavailable: ${(error as Error).message}\n`;
  }
}
