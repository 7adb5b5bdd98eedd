// The console's mapping page in headless Chromium (issue #26 section 3), against a real PostgreSQL and
// the Salesforce and commerce sandboxes: the Opportunity's fields from Salesforce's describe, filtered by
// type; a field mapped to a canonical value; a test on a real offer showing the payload and a value
// Salesforce would refuse, with nothing written; a save that becomes a version and an audit event; a
// roll back. Screenshots go to test-artifacts/console/ (and docs/screenshots/ with UPDATE_SCREENSHOTS=1).
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore, type Connection } from '../../store/connections.ts';
import { createRuntimeCache } from '../../sync/runtime.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, createSandboxConnection, salesforceCalls, startSandboxes, TEST_SECRET_BOX, writeCalls } from '../support/sync-harness.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-artifacts', 'console');
const ADMIN_TOKEN = `mapping-token-${randomBytes(16).toString('hex')}`;
// Longer than Opportunity.Offer_Type__c's 40 characters.
const TOO_LONG = 'Private offer negotiated through the marketplace channel';

if (chromiumMissing) console.warn(chromiumMissing);

describe.skipIf(Boolean(chromiumMissing))('console mapping page in headless Chromium (real PostgreSQL, Salesforce and commerce sandboxes)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  let admin: AdminServer;
  let browser: Browser;
  let page: Page;
  let offer: { id: string; offerType: string };
  let writesBefore = 0;
  const seen: string[] = []; // every answer the browser got, checked for the connection's secrets at the end
  const mappingUrl = () => `${admin.url}/connections/${connection.id}/mappings/offer`;
  const stored = async () => (await createConnectionStore(database.pool, TEST_SECRET_BOX).get(connection.id))!.settings.overrides;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 6, seed: 27 });
    connection = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: ['buyer', 'offer'] });
    offer = (await commerceDump(sandboxes.commerce, 'offers')).find((candidate) => candidate.status === 'ACCEPTED' && candidate.offerType);
    admin = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      token: ADMIN_TOKEN,
      metrics: createSyncMetrics({ pool: database.pool }),
      // The mapping page needs no Temporal: the connection page's schedule state says "unknown" without one.
      console: { pool: database.pool, connections: createConnectionStore(database.pool, TEST_SECRET_BOX), temporal: async () => Promise.reject(new Error('no Temporal in this test')), taskQueue: 'none' },
      sessionStorage: { postgres: database.pool },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('response', async (answer) => {
      if (answer.url().startsWith(admin.url)) seen.push(await answer.text().catch(() => ''));
    });
    writesBefore = writeCalls(await salesforceCalls(sandboxes.salesforce));
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it("lists the Opportunity's fields from Salesforce's describe and filters them by type", async () => {
    await page.goto(mappingUrl());
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(mappingUrl());
    expect(await page.locator('h1').textContent()).toBe(`offer → Salesforce Opportunity: ${connection.name}`);
    await expect.poll(() => page.locator('tr[data-field="Name"]').isVisible()).toBe(true);
    expect(await page.locator('select[name="source:Name"]').inputValue()).toBe('default');
    expect(await page.locator('select[name="source:Description"]').inputValue()).toBe('none');
    // StageName: its picklist rows from the stage map, the org's values offered.
    expect(await page.locator('select[name="pick:StageName:ACCEPTED"]').inputValue()).toBe('Closed Won');
    expect(await page.locator('input[name="createOnly"][value="CurrencyIsoCode"]').count()).toBe(0); // the sandbox org is single-currency
    expect(await page.locator('input[name="createOnly"][value="Amount"]').isChecked()).toBe(false);

    await page.getByLabel('Show fields of type').selectOption('textarea');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('tr[data-field="Name"]').isVisible()).toBe(false);
    expect(await page.locator('tr[data-field="Description"]').isVisible()).toBe(true);
    await page.getByLabel('Show fields of type').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('tr[data-field="Name"]').isVisible()).toBe(true);
  });

  it('maps a field, tests on a real offer (a refused value named, nothing written), then tests clean', async () => {
    await page.locator('select[name="source:Description"]').selectOption('canonical:offerType');
    await page.locator('select[name="source:Offer_Type__c"]').selectOption('constant');
    await page.locator('input[name="constant:Offer_Type__c"]').fill(TOO_LONG);
    await page.getByLabel('offer id').fill(offer.id);
    await page.getByRole('button', { name: 'Test' }).click();
    await page.locator('#test-result').waitFor();
    expect(await page.locator('#test-result [role=status]').textContent()).toBe('Salesforce would refuse this record (checked against its describe; nothing was written).');
    expect(await page.locator('tr[data-test-field="Description"] td').allTextContents()).toEqual([offer.offerType, 'accepted']);
    expect(await page.locator('tr[data-test-field="Offer_Type__c"] td').nth(1).textContent()).toBe(`Offer_Type__c takes at most 40 characters; this value has ${TOO_LONG.length}`);
    // The unsaved choices came back as they were.
    expect(await page.locator('select[name="source:Description"]').inputValue()).toBe('canonical:offerType');

    await page.locator('select[name="source:Offer_Type__c"]').selectOption('default');
    await page.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => page.locator('#test-result [role=status]').textContent()).toBe('Salesforce would take this record as it stands (checked against its describe; nothing was written).');
    expect(await page.locator('tr[data-test-field="Offer_Type__c"] td').allTextContents()).toEqual([offer.offerType, 'accepted']);
    await page.screenshot({ path: path.join(SHOTS, 'mapping-page.png'), fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
      copyFileSync(path.join(SHOTS, 'mapping-page.png'), path.join(ROOT, 'docs', 'screenshots', 'mapping-page.png'));
    }
    expect(await stored()).toEqual({}); // testing saved nothing
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - writesBefore).toBe(0);
  });

  it('saves the mapping as a new version with an audit event, then rolls back to the first', async () => {
    await page.getByRole('button', { name: 'Save the mapping' }).click();
    await expect.poll(() => page.locator('.flash').textContent()).toBe('Saved the offer mapping as version 2; the next sync writes with it.');
    expect(await stored()).toEqual({ offer: { map: { Description: 'offerType' } } });
    expect(await page.locator('select[name="source:Description"]').inputValue()).toBe('canonical:offerType');
    expect(await page.locator('table.versions tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-version')))).toEqual(['2', '1']);
    expect(await page.locator('tr[data-version="2"] td').nth(1).textContent()).toBe('token');

    await page.getByRole('button', { name: 'Roll back to 1' }).click();
    await expect.poll(() => page.locator('.flash').textContent()).toBe('Rolled the offer mapping back to version 1, saved as version 3.');
    expect(await stored()).toEqual({});
    expect(await page.locator('select[name="source:Description"]').inputValue()).toBe('none');
    expect(await page.locator('table.versions tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-version')))).toEqual(['3', '2', '1']);
    const audit = await createAuditStore(database.pool).list({ connectionId: connection.id, limit: 10 });
    expect(audit.events.map((event) => [event.action, event.actorLabel, event.via, event.target])).toEqual([
      ['mapping.rollback', 'token', 'console', 'offer'],
      ['mapping.edit', 'token', 'console', 'offer'],
    ]);
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - writesBefore).toBe(0);
  });

  it('a script with the admin token rolls back through the same address: recorded via api, not console', async () => {
    const answer = await fetch(`${mappingUrl()}/rollback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'version=2',
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    expect(await stored()).toEqual({ offer: { map: { Description: 'offerType' } } });
    const [latest] = (await createAuditStore(database.pool).list({ connectionId: connection.id, limit: 1 })).events;
    expect([latest!.action, latest!.actorLabel, latest!.via, latest!.target]).toEqual(['mapping.rollback', 'token', 'api', 'offer']);
  });

  it("has the console's navigation, with the Audit page", async () => {
    await page.goto(mappingUrl());
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Connections', 'Audit', 'Metrics']);
  });

  it("opens the opportunity-referral page from the mapping page and tests real Opportunities on it, writing nothing on either side", async () => {
    // A seller's Opportunities on an Account synced from a real buyer: one shared for co-sell, one not.
    const crm = (await createRuntimeCache(createConnectionStore(database.pool, TEST_SECRET_BOX))(connection.id)).crm;
    const buyer = (await commerceDump(sandboxes.commerce, 'buyers'))[0];
    const [account] = await crm.upsert('Account', [{ sourceId: buyer.id, externalIdField: 'Commerce_Buyer_Id__c', externalId: buyer.id, fields: { Name: 'Synced Buyer Ltd' } }]);
    const opportunity = (sourceId: string, share: boolean) => ({ sourceId, fields: { Name: `${sourceId} deal`, AccountId: account!.ok ? account!.crmId : '', StageName: 'Prospecting', CloseDate: '2027-03-31', Amount: 24000, Cosell_Share__c: share, Cosell_Partner__c: 'Marketplace B' } });
    const [shared, quiet] = (await crm.insert('Opportunity', [opportunity('Shared', true), opportunity('Quiet', false)])).map((result) => (result.ok ? result.crmId : expect.unreachable(JSON.stringify(result))));
    const sfWrites = writeCalls(await salesforceCalls(sandboxes.salesforce));

    await page.goto(mappingUrl());
    await page.getByRole('link', { name: 'opportunity-referral' }).click();
    await page.waitForURL(`${admin.url}/connections/${connection.id}/mappings/crm/opportunity-referral`);
    expect(await page.locator('h1').textContent()).toBe(`Salesforce Opportunity → commerce (opportunity-referral): ${connection.name}`);
    expect(await page.locator('section[aria-labelledby="reads-title"]').textContent()).toContain('Cosell_Share__c');
    expect(await page.locator('section[aria-labelledby="writes-title"]').textContent()).toContain('its id goes into Commerce_Referral_Id__c');
    expect(await page.locator('#flow-off').count()).toBe(0); // co-sell is on (its default): no note that the flow does not run

    await page.getByLabel('Opportunity id').fill(shared!);
    await page.getByRole('button', { name: 'Test' }).click();
    await page.locator('#test-result').waitFor();
    expect(await page.locator('#test-result [role=status]').textContent()).toBe('The commerce side would take this request (its dry run; nothing was created).');
    expect(JSON.parse((await page.locator('#test-request').textContent())!)).toEqual({
      name: 'Shared deal',
      partner: 'cloudB',
      buyerID: buyer.id,
      dealValue: 24000,
      currency: 'USD',
      expectedCloseDate: '2027-03-31',
      crmAOpportunityId: shared,
      status: 'SUBMITTED',
    });
    expect(JSON.parse((await page.locator('#test-write-back').textContent())!)).toMatchObject({ Commerce_Referral_Id__c: '(the id of the record made)' });
    await page.screenshot({ path: path.join(SHOTS, 'mapping-reverse-page.png'), fullPage: true });

    await page.getByLabel('Opportunity id').fill(quiet!);
    await page.getByRole('button', { name: 'Test' }).click();
    await expect
      .poll(() => page.locator('#test-result [role=status]').textContent())
      .toBe("This record asks nothing of the commerce side. It is not shared for co-sell: this connection's share rule wants Cosell_Share__c ticked, and the record's Cosell_Share__c is false.");
    expect(await page.locator('#test-request').count()).toBe(0);

    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - sfWrites).toBe(0);
    expect((await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => [shared, quiet].includes(referral.crmAOpportunityId))).toEqual([]);
  });

  it("no answer the browser got holds the connection's secrets", () => {
    expect(seen.length).toBeGreaterThan(5);
    for (const secret of [sandboxes.commerce.clientSecret, sandboxes.salesforce.clientSecret, ADMIN_TOKEN]) {
      expect(seen.filter((body) => body.includes(secret))).toEqual([]);
    }
  });
});
