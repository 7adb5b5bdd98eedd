// The web console in headless Chromium (Debian's package, driven by playwright-core), against a real
// PostgreSQL, a real Temporal server, a real worker and both sandboxes: signing in, the connection list,
// a failing record's message in Salesforce's words, a retry that succeeds once the mapping is fixed, a
// backfill started from its form with its progress rising, the runs chart, the mapping page. Requests
// without the token are refused, forms without the session's CSRF token too, and no page or API answer
// holds a secret. Screenshots go to test-artifacts/console/.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { waitFor } from '../support/start-process.ts';
import { commerceDump, salesforceDump, startProductionWorker, startSandboxes } from '../support/sync-harness.ts';

const SHOTS = path.join(import.meta.dirname, '..', '..', 'test-artifacts', 'console');
const ADMIN_TOKEN = `console-token-${randomBytes(12).toString('hex')}`;
// Longer than Opportunity.Offer_Type__c's 40 characters: every offer is refused by Salesforce.
const TOO_LONG = 'Private offer negotiated through the marketplace channel';

if (chromiumMissing) console.warn(chromiumMissing);

describe.skipIf(Boolean(chromiumMissing))('web console in headless Chromium (real PostgreSQL, Temporal, worker, sandboxes)', () => {
  const key = randomBytes(32);
  const taskQueue = `console-${Date.now()}`;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let admin: AdminServer;
  let browser: Browser;
  let page: Page;
  let env: NodeJS.ProcessEnv;
  let connectionId = '';
  const seen: string[] = []; // every page and API answer the browser got, checked for secrets at the end

  const cli = (args: string[]) => runCli(env, args);
  const temporal = () => new Client({ connection: worker.connection });
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 40, seed: 44 });
    env = cliEnv({
      databaseUrl: database.url,
      secretKey: key.toString('base64'),
      taskQueue,
      commerceClientSecret: sandboxes.commerce.clientSecret,
      salesforceClientSecret: sandboxes.salesforce.clientSecret,
    });
    const secretBox = new SecretBox(key);
    worker = await startProductionWorker(database, { taskQueue, secretBox });
    const saved = JSON.parse(
      (
        await cli([
          'connect', '--name', 'acme', '--paused',
          '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
          '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
          '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
          '--entities', 'buyer,offer',
          // A constant someone typed too long for the org's field: every offer is refused.
          '--overrides', JSON.stringify({ offer: { constants: { Offer_Type__c: TOO_LONG } } }),
        ])
      ).stdout,
    );
    connectionId = saved.connection;
    await temporal().workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `console-first-sync-${Date.now()}`, args: [{ connectionId }] });
    admin = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: ADMIN_TOKEN,
      metrics: createSyncMetrics({ pool: database.pool }),
      console: { pool: database.pool, connections: createConnectionStore(database.pool, secretBox), temporal: async () => temporal(), taskQueue },
      sessionStorage: { postgres: database.pool },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('response', async (answer) => {
      if (answer.url().startsWith(admin.url) && answer.request().resourceType() !== 'image') seen.push(await answer.text().catch(() => ''));
    });
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.stop();
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('refuses every request without the token: pages send to the login page, the rest answer 401', async () => {
    const home = await fetch(`${admin.url}/connections/${connectionId}`, { redirect: 'manual' });
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe(`/login?next=${encodeURIComponent(`/connections/${connectionId}`)}`);
    for (const url of ['/metrics', `/api/connections/${connectionId}/backfills/backfill-${connectionId}-x`, '/assets/console.js']) {
      expect((await fetch(`${admin.url}${url}`)).status).toBe(401);
    }
    const forged = await fetch(`${admin.url}/connections/${connectionId}/retry`, { method: 'POST', body: 'entity=offer', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(forged.status).toBe(401);
    expect((await fetch(`${admin.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
    // Signing in never sends the browser to another site, whatever `next` says.
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const signedIn = await fetch(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: ADMIN_TOKEN, next }), redirect: 'manual' });
      expect(signedIn.status, next).toBe(303);
      expect(signedIn.headers.get('location'), next).toBe('/');
    }
  });

  it('signs in with the admin token (a wrong one is refused) and lists the connection with its health', async () => {
    await page.goto(`${admin.url}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not this worker');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${admin.url}/`);
    const cookie = (await page.context().cookies()).find((entry) => entry.name === 'crm_sync_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const row = page.locator('tr[data-connection="acme"]');
    await expect.poll(() => row.locator('td').nth(0).textContent()).toBe('Salesforce');
    const offers = (await commerceDump(sandboxes.commerce, 'offers')).length;
    expect(await row.locator('td').nth(1).textContent()).toContain('paused');
    expect(await row.locator('td').nth(4).textContent()).toBe(String(offers)); // every offer waits as a dead letter
    expect(await row.locator('td').nth(2).textContent()).toMatch(/^incremental completed/);
    await shot('01-connections');
  });

  it("shows a failing record's message in Salesforce's words, with its mapped payload", async () => {
    await page.getByRole('link', { name: 'acme' }).click();
    await page.waitForURL(`${admin.url}/connections/${connectionId}`);
    const letters = page.locator('tr.letter');
    const offers = (await commerceDump(sandboxes.commerce, 'offers')).map((offer) => offer.id);
    expect(await letters.count()).toBe(offers.length);
    // Counted apart, per entity: one page holds them all, so no page links; the offer link narrows to them.
    expect(await page.locator('#letters-title').textContent()).toBe(`Dead letters (${offers.length})`);
    expect(await page.getByRole('navigation', { name: 'Dead letter pages' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Dead letters by entity' }).getByRole('link', { name: `offer (${offers.length})` }).click();
    await page.waitForURL(`${admin.url}/connections/${connectionId}?entity=offer#dead-letters`);
    expect(await page.locator('#letters-title').textContent()).toBe(`Dead letters (${offers.length} offer)`);
    expect(await letters.count()).toBe(offers.length);
    const first = letters.first();
    expect(await first.locator('.reason').textContent()).toContain(`Offer Type: data value too large: ${TOO_LONG} (max length=40)`);
    expect(await first.locator('.reason').textContent()).toContain('STRING_TOO_LONG');
    await first.getByText('The CRM\'s answer and the mapped payload').click();
    expect(await first.locator('pre').textContent()).toContain(TOO_LONG);
    await shot('02-dead-letters');
    await page.screenshot({ path: path.join(SHOTS, 'dead-letters-screen.png') });
  });

  it('a retry after the mapping is fixed succeeds: the record reaches Salesforce and leaves the list', async () => {
    const overrides = path.join(os.tmpdir(), `console-overrides-${Date.now()}.json`);
    writeFileSync(overrides, JSON.stringify({ offer: { constants: { Offer_Type__c: 'Private offer' } } }));
    await cli(['mapping', 'acme', '--edit', overrides]);
    const chosen = (await page.locator('tr.letter').first().getAttribute('data-source-id'))!;
    const before = await page.locator('tr.letter').count();
    await page.getByRole('button', { name: `Retry offer ${chosen}` }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('1 dead letter is due now; the sync starts now and retries them');
    const written = await waitFor('the retried offer in Salesforce', async () => (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Commerce_Offer_Id__c === chosen), 60_000);
    expect(written.Offer_Type__c).toBe('Private offer');
    await waitFor('the letter resolved', async () => {
      await page.reload();
      return (await page.locator(`tr.letter[data-source-id="${chosen}"]`).count()) === 0;
    }, 60_000, 1000);
    // The sync the retry started also re-read the offers its look-back covers: with the mapping fixed they went through too.
    expect(await page.locator('tr.letter').count()).toBeLessThan(before);
    await shot('03-after-retry');
  });

  it('a form without the session\'s CSRF token is refused, even from the signed-in browser', async () => {
    const answer = await page.evaluate(async (url) => {
      const response = await fetch(url, { method: 'POST', body: new URLSearchParams({ entity: 'offer' }), credentials: 'same-origin' });
      return { status: response.status, text: await response.text() };
    }, `${admin.url}/connections/${connectionId}/retry`);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('stale or came from another site');
  });

  it('starts a backfill from its form and shows its progress rising until it completes', async () => {
    // Salesforce answers slowly, as a busy org does, so there is progress to watch.
    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: '*', latencyMs: 300 }) });
    await page.getByLabel('Write every record again (forget which were written)').check();
    await page.getByRole('button', { name: 'Start backfill' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Backfill backfill-.* is running/);
    const panel = page.locator('#backfill-progress');
    const readings: number[] = [];
    await waitFor('progress while it runs', async () => {
      const records = Number((await panel.getAttribute('data-records')) ?? -1);
      if (records >= 0 && records !== readings.at(-1)) readings.push(records);
      return readings.length >= 2;
    }, 60_000, 200);
    await shot('04-backfill-running');
    await expect.poll(() => page.locator('#backfill-text').textContent(), { timeout: 90_000, interval: 500 }).toMatch(/^COMPLETED · done/);
    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'DELETE' });
    const final = Number(await panel.getAttribute('data-records'));
    expect(readings[0]!).toBeLessThan(readings.at(-1)!);
    const buyers = (await commerceDump(sandboxes.commerce, 'buyers')).length;
    const offers = (await commerceDump(sandboxes.commerce, 'offers')).length;
    expect(final).toBe(buyers + offers);
    expect(await page.locator('#backfill-bar').evaluate((bar) => (bar as unknown as { position: number }).position)).toBe(1); // full
    await page.reload();
    expect(await page.locator('tr.letter').count()).toBe(0); // the fixed mapping let every offer through
    expect(await page.locator('#runs-table tbody tr').first().textContent()).toMatch(/backfill\s*completed/);
    expect(await page.locator('#runs-chart canvas').count()).toBeGreaterThan(0);
    await shot('05-backfill-done');
    await page.screenshot({ path: path.join(SHOTS, 'console.png') }); // what a laptop screen shows (the README's picture)
  });

  it('shows the co-sell queue: refused requests with their reasons, waiting ones and queued stage edits', async () => {
    // What co-sell runs leave in the store (their own tests make them for real): one refused, one waiting, one stage queued.
    await database.pool.query(
      `INSERT INTO outbound_intents (connection_id, flow, crm_id, state, payload_hash, message) VALUES
       ($1, 'opportunity-referral', '006000000000001AAA', 'refused', 'h1', 'The Opportunity has no Account: set one, then share it again'),
       ($1, 'opportunity-draft-offer', '006000000000002AAA', 'pending', 'h2', NULL),
       ($1, 'opportunity-referral', '006000000000003AAA', 'created', 'h3', NULL)`,
      [connectionId],
    );
    await database.pool.query(
      `INSERT INTO stage_sync (connection_id, referral_id, crm_id, pending_side, pending_stage, pending_reason, pending_attempts, next_try_at)
       VALUES ($1, 'ref-queued-1', '006000000000004AAA', 'commerce', 'Committed', 'the commerce side refused the edit: referral locked for review', 2, now() + interval '5 minutes')`,
      [connectionId],
    );
    await page.goto(`${admin.url}/connections/${connectionId}#cosell`);
    const cosell = page.locator('#cosell');
    expect(await cosell.locator('p').first().textContent()).toBe('1 made from CRM records so far; 1 waiting; 1 refused; 1 stage edit queued.');
    expect(await cosell.locator('tr', { hasText: '006000000000001AAA' }).textContent()).toContain('The Opportunity has no Account: set one, then share it again');
    expect(await cosell.locator('tr', { hasText: '006000000000002AAA' }).textContent()).toContain('opportunity-draft-offer');
    expect(await cosell.locator('tr', { hasText: 'ref-queued-1' }).textContent()).toMatch(/commerce\s*Committed\s*the commerce side refused the edit: referral locked for review\s*2/);
    await cosell.screenshot({ path: path.join(SHOTS, '07-cosell-queue.png') });
  });

  it('shows the mapping in effect, overrides included', async () => {
    await page.getByRole('link', { name: 'The mapping in effect' }).click();
    const offer = page.locator('section.mapping', { has: page.getByRole('heading', { name: /offer → Opportunity/ }) });
    expect(await offer.locator('tr', { hasText: 'Offer_Type__c' }).textContent()).toContain('always "Private offer"');
    await shot('06-mapping');
  });

  it('no page or API answer holds a secret or the admin token', () => {
    expect(seen.length).toBeGreaterThan(8);
    const everything = seen.join('\n');
    for (const secret of [sandboxes.commerce.clientSecret, sandboxes.salesforce.clientSecret, ADMIN_TOKEN, key.toString('base64')]) expect(everything).not.toContain(secret);
  });
});
