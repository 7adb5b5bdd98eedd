// The worker's admin HTTP server, on its own port and bound to loopback unless told otherwise. Nothing
// is answered without the admin token: as a bearer token (scripts, Prometheus) or through a console
// session (the login page takes the token once and sets an HttpOnly, SameSite=Strict cookie; every form
// then carries the session's CSRF token). Over TLS when given a certificate and key (then the cookie is
// Secure); forms are read up to 64 KiB; failed sign-ins are throttled per client address. Serves /metrics in Prometheus' text format (the sync's own and,
// when the Temporal SDK runtime exports its metrics on a local port, those too) and the web console.
// Nothing it answers holds a connection's secrets.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { SyncMetrics } from '../metrics/sync-metrics.ts';
import { redactText } from '../store/redact.ts';
import { loginPage } from './console/pages.ts';
import { consoleRoute, type ConsoleDeps } from './console/routes.ts';
import { createSessionStore, endSessionCookie, readCookie, SESSION_COOKIE, sessionCookie, type Session, type SessionStore } from './console/sessions.ts';
import { HttpError, readLimitedBody } from './form-body.ts';
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
  /** PEM certificate (chain) and private key: serve HTTPS, and mark the session cookie Secure. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Failed sign-ins per client address (default: 5 a minute). */
  signInThrottle?: SignInThrottle;
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

export type AdminServer = { url: string; stop(): Promise<void> };

type State = { sessions: SessionStore; throttle: SignInThrottle; secure: boolean };

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const state: State = { sessions: createSessionStore(), throttle: options.signInThrottle ?? createSignInThrottle(), secure: Boolean(options.tls) };
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
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
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

async function answer(options: AdminServerOptions, { sessions, throttle, secure }: State, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://admin');
  const method = request.method ?? 'GET';
  const html = { 'content-type': 'text/html; charset=utf-8' };

  if (options.console && url.pathname === '/login') {
    // The login page is answered before sign-in, so it carries its styles inline (allowed by a nonce).
    const nonce = randomBytes(16).toString('base64');
    const styled = { ...html, 'content-security-policy': LOGIN_CSP(nonce) };
    if (method === 'GET') return send(response, 200, loginPage({ next: safeNext(url.searchParams.get('next')), nonce, css: loginCss() }), styled);
    if (method === 'POST') {
      if (!sameOrigin(request)) return send(response, 403, 'Refused: the form came from another site\n');
      // Behind a reverse proxy every person shares its address: the limit then holds for all of them together.
      const client = request.socket.remoteAddress ?? 'unknown';
      const form = await readForm(request);
      const wait = throttle.retryAfter(client);
      if (wait !== undefined) {
        return send(response, 429, `Too many failed sign-ins from this address: try again in ${wait} seconds.\n`, { 'retry-after': String(wait) });
      }
      if (!tokenMatches(options.token, form.get('token') ?? undefined)) {
        throttle.failed(client);
        return send(response, 401, loginPage({ failed: true, next: safeNext(form.get('next')), nonce, css: loginCss() }), styled);
      }
      throttle.succeeded(client);
      const session = sessions.create();
      return send(response, 303, '', { location: safeNext(form.get('next')), 'set-cookie': sessionCookie(session, { secure }) });
    }
  }

  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const byBearer = tokenMatches(options.token, bearer);
  const cookieSession = options.console ? sessions.get(readCookie(request.headers.cookie, SESSION_COOKIE)) : undefined;
  if (!byBearer && !cookieSession) {
    const wantsPage = options.console && method === 'GET' && !url.pathname.startsWith('/api/') && url.pathname !== '/metrics' && !url.pathname.startsWith('/assets/');
    if (wantsPage) return send(response, 303, '', { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}` });
    return send(response, 401, "The admin server needs its token: Authorization: Bearer <token> (printed at start, and kept in the data directory's admin-token), or sign in to the console at /login\n", {
      'www-authenticate': 'Bearer realm="crm-sync"',
    });
  }
  // A bearer request has no cookie to forge, so it needs no CSRF token; a session's forms must carry theirs.
  const session: Session = cookieSession ?? { id: '', csrf: randomBytes(16).toString('base64url'), expiresAt: 0 };
  let form: URLSearchParams | undefined;
  if (method === 'POST') {
    form = await readForm(request);
    if (!byBearer && (!sameOrigin(request) || !tokenMatches(session.csrf, form.get('csrf') ?? undefined))) {
      return send(response, 403, 'Refused: this form is stale or came from another site (reload the page and try again)\n');
    }
  }

  if (method === 'POST' && url.pathname === '/logout') {
    if (cookieSession) sessions.end(cookieSession.id);
    return send(response, 303, '', { location: '/login', 'set-cookie': endSessionCookie({ secure }) });
  }
  if (method === 'GET' && url.pathname === '/metrics') {
    const own = await options.metrics.registry.metrics();
    const temporal = options.temporalMetricsUrl ? await fetchText(options.temporalMetricsUrl) : '';
    return send(response, 200, temporal ? `${own}\n${temporal}` : own, { 'content-type': options.metrics.registry.contentType });
  }
  const asset = url.pathname.startsWith('/assets/') ? ASSETS[url.pathname.slice('/assets/'.length)] : undefined;
  if (options.console && method === 'GET' && asset) return send(response, 200, readFileSync(asset.file, 'utf8'), { 'content-type': asset.type, 'cache-control': 'private, max-age=300' });
  if (options.console) {
    const reply = await consoleRoute(options.console, session, method, url, form);
    if (reply) return send(response, reply.status, reply.body, { ...(reply.type && { 'content-type': reply.type }), ...reply.headers });
  }
  send(response, 404, `Not found: the admin server answers GET /metrics${options.console ? ' and the console at /' : ''}\n`);
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
