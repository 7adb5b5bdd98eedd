// The audit trail in the console (issue #26 section 2), in headless Chromium against a real PostgreSQL,
// a real Temporal server and a real OpenID Connect provider: an operator's retry from the connection
// page and a script's retry through the API (the admin token as a Bearer token) are each recorded, as
// the person ("Otto Operator <otto@example.com>", via console) and as "token" (via api); a viewer opens
// the audit page from the navigation, filters it by action, connection and actor, and reads a settings
// edit's before and after as a diff. No answer holds a secret. The screenshot goes to
// test-artifacts/console/audit-page.png (and docs/screenshots/ with UPDATE_SCREENSHOTS=1).
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-artifacts', 'console');
const ADMIN_TOKEN = `audit-console-token-${randomBytes(16).toString('hex')}`;
const CONNECTION_SECRET = `audit-commerce-secret-${randomBytes(8).toString('hex')}`;
const PEOPLE = {
  vera: { name: 'Vera Viewer', email: 'vera@example.com', groups: ['sales'] },
  otto: { name: 'Otto Operator', email: 'otto@example.com', groups: ['revops'] },
};
// Co-sell write-backs the CRM refused: a retry of them asks Temporal for the co-sell schedule only (none here), no sync starts.
const FLOW = 'opportunity-referral';
const SETTINGS = {
  commerce: { baseUrl: 'https://commerce.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
  crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 's' },
  entities: ['offer'],
};

if (chromiumMissing) console.warn(chromiumMissing);

describe.skipIf(Boolean(chromiumMissing))('console audit page in headless Chromium (real PostgreSQL, Temporal, OpenID Connect provider)', () => {
  let database: TestDatabase;
  let provider: TestOidcProvider;
  let temporal: TemporalConnection;
  let admin: AdminServer;
  let browser: Browser;
  let acme = '';
  let globex = '';
  const seen: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    database = await createTestDatabase();
    const connections = createConnectionStore(database.pool, new SecretBox(randomBytes(32)));
    acme = (await connections.create({ name: 'acme', crmKind: 'salesforce', settings: SETTINGS, secrets: { commerceClientSecret: CONNECTION_SECRET } })).id;
    globex = (await connections.create({ name: 'globex', crmKind: 'salesforce', settings: SETTINGS, secrets: { commerceClientSecret: CONNECTION_SECRET } })).id;
    await createDeadLetterStore(database.pool).record(acme, FLOW, [
      { sourceId: '006000000000001AAA', reason: 'The commerce side refused the referral' },
      { sourceId: '006000000000002AAA', reason: 'The commerce side refused the referral' },
    ]);
    // Someone edited a setting of globex from the CLI: its before and after are shown as a diff.
    await createAuditStore(database.pool).record({ actor: { kind: 'cli', osUser: 'deploy' }, via: 'cli', action: 'settings.edit', connectionId: globex, before: { schedule: { every: '5m', pageSize: 200 } }, after: { schedule: { every: '10m', pageSize: 200 } } });
    temporal = await TemporalConnection.connect({ address: inject('temporalAddress') });
    provider = await startOidcProvider(PEOPLE);
    admin = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: ADMIN_TOKEN,
      metrics: createSyncMetrics({ pool: database.pool }),
      console: { pool: database.pool, connections, temporal: async () => new Client({ connection: temporal }), taskQueue: `audit-console-${Date.now()}` },
      sessionStorage: { postgres: database.pool },
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, scopes: ['openid', 'profile', 'email', 'groups'], rolesClaim: 'groups', groups: { admin: ['crm-admins'], operator: ['revops'], viewer: ['sales'] } },
    });
    await provider.register(admin.oidcRedirectUrl!);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.stop();
    await provider?.stop();
    await temporal?.close();
    await database?.drop();
  });

  /** A fresh browser signed in as `who` through the provider's own form, landing on `path`. */
  async function signInAs(who: keyof typeof PEOPLE, path: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('response', async (answer) => {
      if (answer.url().startsWith(admin.url)) seen.push(await answer.text().catch(() => ''));
    });
    await page.goto(`${admin.url}${path}`);
    await page.getByRole('link', { name: `Sign in with ${new URL(provider.issuer).host}` }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name=login]').fill(who);
    await page.locator('input[name=password]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL(`${admin.url}${path}`);
    return page;
  }

  it("records an operator's retry in the console as the person, via console", async () => {
    const page = await signInAs('otto', `/connections/${acme}`);
    await page.getByRole('button', { name: `Retry ${FLOW} 006000000000001AAA` }).click();
    await expect.poll(() => page.locator('.flash').textContent()).toContain('1 refused co-sell write-back is due now');
    const { events } = await createAuditStore(database.pool).list({ limit: 10, action: 'retry' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorLabel: 'Otto Operator <otto@example.com>', via: 'console', action: 'retry', connectionId: acme, target: `${FLOW} 006000000000001AAA`, detail: { due: 1 } });
  });

  it("records a script's retry through the API as the token, via api", async () => {
    const answer = await fetch(`${admin.url}/api/connections/${acme}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entity: FLOW }),
    });
    expect(answer.status).toBe(200);
    // Both letters stay open until a run writes them: retrying the flow makes both due again.
    expect(await answer.json()).toMatchObject({ due: 2 });
    const { events } = await createAuditStore(database.pool).list({ limit: 10, action: 'retry' });
    expect(events[0]).toMatchObject({ actorLabel: 'token', actor: { kind: 'token' }, via: 'api', connectionId: acme, target: FLOW });
  });

  it('lets a viewer read the audit page from the navigation, filter it by action, and see who did each', async () => {
    const page = await signInAs('vera', '/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL(`${admin.url}/audit`);
    expect(await page.locator('h1').textContent()).toBe('Audit trail');
    expect(await page.locator('tr.audit-event').count()).toBe(3);
    expect(await page.locator('#audit-showing').textContent()).toBe('Showing 1–3 of 3');

    await page.getByLabel('Action').selectOption('retry');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('action') === 'retry');
    const rows = page.locator('tr.audit-event');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual([expect.any(String), 'token', 'api', 'retry', 'acme', FLOW, 'due: 2 · hadUsedAllAttempts: 0 · syncStarted: false']);
    expect((await rows.nth(1).locator('td').allTextContents()).slice(1, 6)).toEqual(['Otto Operator <otto@example.com>', 'console', 'retry', 'acme', `${FLOW} 006000000000001AAA`]);

    await page.getByLabel('Who').fill('otto');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('actor') === 'otto');
    expect(await rows.count()).toBe(1);
  });

  it("shows a settings edit's before and after as a diff, per connection (the connection page links to it)", async () => {
    const page = await signInAs('vera', `/connections/${globex}`);
    await page.getByRole('link', { name: 'Audit trail of globex' }).click();
    await page.waitForURL(`${admin.url}/audit?connection=${globex}`);
    expect(await page.getByLabel('Connection').inputValue()).toBe(globex);
    const row = page.locator('tr.audit-event');
    expect(await row.count()).toBe(1);
    expect((await row.locator('td').allTextContents()).slice(1, 5)).toEqual(['cli as deploy', 'cli', 'settings.edit', 'globex']);
    await row.getByText('1 value changed').click();
    expect(await row.locator('table.diff tbody tr').first().locator('td, th').allTextContents()).toEqual(['schedule.every', '"5m"', '"10m"']);
    await page.screenshot({ path: path.join(SHOTS, 'audit-page.png'), fullPage: true });

    // The whole trail, for the picture: every connection, newest first.
    await page.goto(`${admin.url}/audit`);
    await page.locator('tr.audit-event details').last().locator('summary').click();
    await page.screenshot({ path: path.join(SHOTS, 'audit-page.png'), fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS) {
      mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
      copyFileSync(path.join(SHOTS, 'audit-page.png'), path.join(ROOT, 'docs', 'screenshots', 'audit-page.png'));
    }
  });

  it('a page or filter that is not there is said plainly, and no answer holds a secret', async () => {
    const page = await signInAs('vera', `/audit?page=9&connection=${acme}`);
    expect(await page.locator('#audit-showing').textContent()).toBe('Page 9 is past the end: 2 events.');
    for (const secret of [ADMIN_TOKEN, CONNECTION_SECRET, provider.clientSecret]) expect(seen.join('\n')).not.toContain(secret);
  });
});
