// Issue #22 item 3: the daily limit park must end. HubSpot resets the daily limit at midnight in the
// account's time zone (not UTC); a connection parked on it (a DAILY 429, or the share reserved for the
// account's other integrations) sends its next request once the account's day has turned. OAuth
// answers carry no X-HubSpot-RateLimit-Daily* headers, so an OAuth connection keeps its reserve from
// the account's daily usage report. The sandbox and the connector share one moved clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let now: Date;
let hubspot: HubSpotSandbox;

beforeEach(async () => {
  now = new Date('2026-11-26T03:00:00.000Z'); // 22:00 on 25 November in New York, 04:00 on the 26th in Paris
  hubspot = await startHubSpotSandbox({ now: () => now, dailyLimit: 1000, tenSecondlyLimit: 100_000, searchPerSecond: 1000 });
});
afterEach(() => hubspot.stop());

const privateApp = (extra: Record<string, unknown> = {}) =>
  createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', ...extra }, { crmAccessToken: hubspot.accessToken }, {}, { clock: () => now, wait: async () => {} });
const oauthApp = (extra: Record<string, unknown> = {}) =>
  createHubSpotConnector(
    { baseUrl: hubspot.baseUrl, auth: 'oauth', clientId: hubspot.oauth.clientId, entitlementObject: 'marketplace_entitlement', ...extra },
    { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: hubspot.oauth.refreshToken },
    {},
    { clock: () => now, wait: async () => {} },
  );
const read = (crm: ReturnType<typeof privateApp>) => crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
const calls = async (): Promise<Record<string, number>> => control(hubspot, 'GET', '/calls');

describe('HubSpot daily limit: the park ends when the account\'s day turns', () => {
  it('a DAILY 429 parks the connection until midnight in the account\'s time zone; after it, the next request is sent', async () => {
    const crm = privateApp();
    await read(crm);
    // The account's other integrations spend the rest of the day.
    await control(hubspot, 'POST', '/limits', { dailyUsed: 1000 });
    await expect(read(crm)).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
    // Midnight in New York (the account's US/Eastern), not midnight UTC (which came three hours ago).
    expect(crm.budget().parkedUntil?.toISOString()).toBe('2026-11-26T05:00:00.000Z');
    now = new Date('2026-11-26T04:59:00.000Z');
    await control(hubspot, 'DELETE', '/calls');
    await expect(read(crm)).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
    expect((await calls()).total ?? 0).toBe(0);

    now = new Date('2026-11-26T05:00:01.000Z'); // the account's day has turned: HubSpot reset the count
    await expect(read(crm)).resolves.toBeInstanceOf(Map);
    expect((await calls())['companies.batch.read']).toBe(1);
    expect(crm.budget().parkedUntil).toBeUndefined();
    expect(crm.budget()).toMatchObject({ limit: 1000 });
    expect(crm.budget().used).toBeLessThan(10);
  });

  it('a connection that starts on a day already spent cannot learn when it ends: it looks again within the hour, and sends once the day has turned', async () => {
    const crm = privateApp();
    await control(hubspot, 'POST', '/limits', { dailyUsed: 1000 });
    await expect(read(crm)).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
    expect(crm.budget().parkedUntil?.toISOString()).toBe('2026-11-26T04:00:00.000Z'); // an hour on: HubSpot refused every question
    now = new Date('2026-11-26T04:00:01.000Z'); // still 23:00 in New York: refused again, another hour
    await expect(read(crm)).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
    expect(crm.budget().parkedUntil?.toISOString()).toBe('2026-11-26T05:00:01.000Z');
    now = new Date('2026-11-26T05:00:01.000Z'); // the account's day has turned
    await control(hubspot, 'DELETE', '/calls');
    await expect(read(crm)).resolves.toBeInstanceOf(Map);
    expect((await calls())['companies.batch.read']).toBe(1);
  });

  it('the reserve parks until the account\'s midnight in its own time zone (Paris here), then syncing goes on', async () => {
    await control(hubspot, 'POST', '/account', { timeZone: 'Europe/Paris' });
    const crm = privateApp({ reservedShare: 0.2 });
    await control(hubspot, 'POST', '/limits', { dailyUsed: 798 });
    await read(crm); // the account's details, then the read: its answer says 200 left of 1000, the 20% reserve
    await expect(read(crm)).rejects.toThrow(/reserved for the account's other integrations/);
    expect(crm.budget().parkedUntil?.toISOString()).toBe('2026-11-26T23:00:00.000Z'); // midnight in Paris

    now = new Date('2026-11-26T23:00:01.000Z');
    await control(hubspot, 'DELETE', '/calls');
    await expect(read(crm)).resolves.toBeInstanceOf(Map);
    expect((await calls())['companies.batch.read']).toBe(1);
    expect(crm.budget().parkedUntil).toBeUndefined();
  });
});

describe('HubSpot daily limit: an OAuth connection (no Daily headers)', () => {
  it('keeps its reserve from the account\'s usage report, read sparingly, and parks until the account\'s midnight', async () => {
    const crm = oauthApp({ reservedShare: 0.2 });
    await control(hubspot, 'POST', '/limits', { dailyUsed: 500 });
    for (let i = 0; i < 5; i += 1) await read(crm);
    expect(crm.budget()).toMatchObject({ limit: 1000, reserved: 0.2 });
    expect(crm.budget().used).toBeGreaterThanOrEqual(500);
    // Five reads, one usage report: it is not asked before every call.
    expect((await calls())['account.usage']).toBe(1);

    // Other integrations spend most of the day; the connection learns it at its next look (a few minutes on).
    await control(hubspot, 'POST', '/limits', { dailyUsed: 850 });
    now = new Date(now.getTime() + 6 * 60_000);
    await expect(read(crm)).rejects.toThrow(/reserved for the account's other integrations/);
    expect(crm.budget().parkedUntil?.toISOString()).toBe('2026-11-26T05:00:00.000Z');

    now = new Date('2026-11-26T05:00:01.000Z');
    await control(hubspot, 'DELETE', '/calls');
    await expect(read(crm)).resolves.toBeInstanceOf(Map);
    expect((await calls())['companies.batch.read']).toBe(1);
    expect(crm.budget().used).toBeLessThan(10);
  });
});
