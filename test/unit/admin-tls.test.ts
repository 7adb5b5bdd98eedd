// An admin server opened beyond loopback: HTTPS from a certificate and key (the session cookie then
// Secure, never without TLS), a warning at start when it listens beyond loopback in clear, and tokens
// too short to resist guessing refused at start with the setting named.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleDeps } from '../../admin/console/routes.ts';
import { isLoopback } from '../../admin/loopback.ts';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { startAdmin } from '../../admin/start.ts';
import { readAdminTls } from '../../admin/tls.ts';
import { resolveAdminToken } from '../../admin/token.ts';
import { ConfigError, loadConfig, type AppConfig } from '../../config/config.ts';
import { createLogger } from '../../config/logger.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

const TOKEN = 'tls-test-token-0123456789abcdef-0123';
const dir = mkdtempSync(path.join(os.tmpdir(), 'admin-tls-'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const otherKeyFile = path.join(dir, 'other-key.pem');

beforeAll(() => {
  // A self-signed certificate for 127.0.0.1, made for this run only.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', otherKeyFile], { stdio: 'ignore' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A request trusting the test's certificate only (no disabled verification). */
function httpsRequest(url: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: options.method ?? 'GET', headers: options.headers, ca: readAdminTls({ certFile, keyFile }).cert }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the admin server over TLS', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics(), console: {} as ConsoleDeps, sessionStorage: 'memory', tls: readAdminTls({ certFile, keyFile }) });
  });
  afterAll(() => admin?.stop());

  it('serves HTTPS with the given certificate', async () => {
    expect(admin.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const metrics = await httpsRequest(`${admin.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('crm_sync_records_total');
  });

  it('marks the session cookie Secure, and the one that ends it', async () => {
    const signedIn = await httpsRequest(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }).toString(), headers: form });
    expect(signedIn.status).toBe(303);
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(/^crm_sync_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/);
    const session = cookie.split(';')[0]!;
    // /logout needs the session's CSRF token only for a cookie session: a bearer request may sign out too.
    const ended = await httpsRequest(`${admin.url}/logout`, { method: 'POST', body: '', headers: { ...form, cookie: session, authorization: `Bearer ${TOKEN}` } });
    expect(ended.status).toBe(303);
    expect(String(ended.headers['set-cookie'])).toBe('crm_sync_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure');
  });
});

describe('the admin server without TLS', () => {
  it('does not mark the session cookie Secure (the browser would never send it back over http)', async () => {
    const admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics(), console: {} as ConsoleDeps, sessionStorage: 'memory' });
    try {
      const signedIn = await fetch(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }), redirect: 'manual' });
      expect(signedIn.headers.get('set-cookie')).toMatch(/^crm_sync_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    } finally {
      await admin.stop();
    }
  });
});

describe('the TLS settings', () => {
  it('are read from CRM_SYNC_ADMIN_TLS_CERT and CRM_SYNC_ADMIN_TLS_KEY, both or neither', () => {
    expect(loadConfig({ CRM_SYNC_ADMIN_TLS_CERT: certFile, CRM_SYNC_ADMIN_TLS_KEY: keyFile }, false).admin.tls).toEqual({ certFile, keyFile });
    expect(loadConfig({}, false).admin.tls).toBeUndefined();
    expect(() => loadConfig({ CRM_SYNC_ADMIN_TLS_CERT: certFile }, false)).toThrow(/CRM_SYNC_ADMIN_TLS_KEY: expected a PEM file whenever CRM_SYNC_ADMIN_TLS_CERT is set/);
    expect(() => loadConfig({ CRM_SYNC_ADMIN_TLS_KEY: keyFile }, false)).toThrow(/CRM_SYNC_ADMIN_TLS_CERT: expected a PEM file whenever CRM_SYNC_ADMIN_TLS_KEY is set/);
  });

  it('refuse a missing file or a key that is not the certificate’s, naming the setting', () => {
    expect(() => readAdminTls({ certFile, keyFile: path.join(dir, 'missing.pem') })).toThrow(new RegExp(`^CRM_SYNC_ADMIN_TLS_KEY: cannot read the admin server's private key from ${path.join(dir, 'missing.pem')} \\(ENOENT\\)$`));
    expect(() => readAdminTls({ certFile, keyFile: otherKeyFile })).toThrow(/^CRM_SYNC_ADMIN_TLS_CERT \/ CRM_SYNC_ADMIN_TLS_KEY: .* are not a PEM certificate and its private key/);
    const notPem = path.join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(() => readAdminTls({ certFile: notPem, keyFile })).toThrow(ConfigError);
  });
});

/** startAdmin with a logger whose lines are kept; no database is queried unless /metrics is scraped. */
async function startCaptured(admin: Partial<AppConfig['admin']>) {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger(
    { level: 'info', format: 'json' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const config = { dataDir: dir, admin: { host: '127.0.0.1', port: 0, token: TOKEN, ...admin } } as AppConfig;
  const started = await startAdmin(config, logger, {} as pg.Pool);
  await started.server.stop();
  return lines;
}

const OIDC_SETTINGS = { issuer: 'https://login.example.com/realms/acme', clientId: 'crm-sync', clientSecret: 'oidc-secret-never-logged', scopes: ['openid'], rolesClaim: 'groups' };

describe('starting the admin server with an identity provider', () => {
  it('logs how long a console session lasts: the setting, not the ID token', async () => {
    const lines = await startCaptured({ oidc: { ...OIDC_SETTINGS, groups: { admin: ['crm-admins'], operator: [], viewer: [] } }, localSignIn: true, sessionLifetimeMs: 8 * 3600_000 });
    expect(lines.map((line) => line.msg)).toContain('Console sessions last 8h (CRM_SYNC_ADMIN_SESSION_LIFETIME), however short the identity provider makes its ID tokens');
    expect(lines.filter((line) => line.level === 40)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('oidc-secret-never-logged');
  });

  it('warns when no group lists are set: roles are then the claim values named admin, operator or viewer', async () => {
    const lines = await startCaptured({ oidc: { ...OIDC_SETTINGS, groups: { admin: [], operator: [], viewer: [] } }, localSignIn: true, sessionLifetimeMs: 30 * 60_000 });
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toEqual([
      'No group lists are set (CRM_SYNC_OIDC_ADMIN_GROUPS, CRM_SYNC_OIDC_OPERATOR_GROUPS, CRM_SYNC_OIDC_VIEWER_GROUPS): a person\'s role is the value of their "groups" claim named admin, operator or viewer, so anyone in a group literally named "admin" at login.example.com is a console admin. Set the group lists to decide who gets which role',
    ]);
    expect(lines.map((line) => line.msg)).toContain('Console sessions last 30m (CRM_SYNC_ADMIN_SESSION_LIFETIME), however short the identity provider makes its ID tokens');
  });
});

const WARNING = /^The admin server listens on 0\.0\.0\.0, beyond this machine, without TLS: the admin token and console sessions cross the network in clear\. Set CRM_SYNC_ADMIN_TLS_CERT and CRM_SYNC_ADMIN_TLS_KEY/;

describe('starting the admin server', () => {
  it('warns when it listens beyond loopback without TLS', async () => {
    const lines = await startCaptured({ host: '0.0.0.0' });
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(WARNING);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it('does not warn on loopback, nor beyond it with TLS', async () => {
    expect((await startCaptured({ host: '127.0.0.1' })).filter((line) => line.level === 40)).toEqual([]);
    const withTls = await startCaptured({ host: '0.0.0.0', tls: { certFile, keyFile } });
    expect(withTls.filter((line) => line.level === 40)).toEqual([]);
    expect(withTls.find((line) => /^Console: https:\/\/0\.0\.0\.0:\d+\//.test(line.msg))).toBeDefined();
  });

  it('tells loopback from beyond', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'admin.example.com', '::ffff:10.0.0.1']) expect(isLoopback(host), host).toBe(false);
  });
});

describe('the admin token length', () => {
  it('refuses CRM_SYNC_ADMIN_TOKEN shorter than 32 characters, naming the variable and never echoing it', () => {
    const short = 'short-token-of-24-chars!';
    expect(() => loadConfig({ CRM_SYNC_ADMIN_TOKEN: short }, false)).toThrow(/CRM_SYNC_ADMIN_TOKEN: expected at least 32 characters \(make one with: openssl rand -base64 32\); got "<redacted>"/);
    expect(() => resolveAdminToken({ dataDir: dir, fromEnvironment: short })).toThrow('CRM_SYNC_ADMIN_TOKEN: expected at least 32 characters (make one with: openssl rand -base64 32); it has 24');
    expect(loadConfig({ CRM_SYNC_ADMIN_TOKEN: 'a'.repeat(32) }, false).admin.token).toBe('a'.repeat(32));
  });

  it('refuses a long token of few different characters, naming where it came from and never echoing it', () => {
    const repeated = 'abcabcabcabcabcabcabcabcabcabcabcabc';
    expect(() => resolveAdminToken({ dataDir: dir, fromEnvironment: repeated })).toThrow(
      'CRM_SYNC_ADMIN_TOKEN: expected at least 8 different characters (make one with: openssl rand -base64 32); it has 3',
    );
    expect(() => resolveAdminToken({ dataDir: dir, fromEnvironment: 'a'.repeat(40) })).toThrow(/it has 1$/);
    try {
      resolveAdminToken({ dataDir: dir, fromEnvironment: repeated });
    } catch (error) {
      expect((error as Error).message).not.toContain('abcabc');
    }
    const own = mkdtempSync(path.join(dir, 'data-'));
    writeFileSync(path.join(own, 'admin-token'), `${'0123'.repeat(10)}\n`);
    expect(() => resolveAdminToken({ dataDir: own })).toThrow(`the admin token in ${path.join(own, 'admin-token')}: expected at least 8 different characters (delete the file to have one generated, or write a better one into it); it has 4`);
    expect(resolveAdminToken({ dataDir: dir, fromEnvironment: 'abcdefgh'.repeat(4) }).value).toBe('abcdefgh'.repeat(4));
  });

  it('refuses a short token written into the data directory, naming the file', () => {
    const own = mkdtempSync(path.join(dir, 'data-'));
    writeFileSync(path.join(own, 'admin-token'), 'hunter2\n');
    expect(() => resolveAdminToken({ dataDir: own })).toThrow(`the admin token in ${path.join(own, 'admin-token')}: expected at least 32 characters (delete the file to have one generated, or write a longer one into it); it has 7`);
  });

  it('refuses it at start, before the server listens', async () => {
    const lines: unknown[] = [];
    const logger = createLogger({ level: 'info', format: 'json' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
    const config = { dataDir: dir, admin: { host: '127.0.0.1', port: 0, token: 'too-short' } } as AppConfig;
    await expect(startAdmin(config, logger, {} as pg.Pool)).rejects.toThrow(/^CRM_SYNC_ADMIN_TOKEN: expected at least 32 characters/);
    expect(lines).toEqual([]);
  });
});
