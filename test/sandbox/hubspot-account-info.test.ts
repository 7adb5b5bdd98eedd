// HubSpot sandbox, issue #22 item 3: the account's details (id, time zone), its daily API usage with
// `resetsAt`, the daily limit reset at midnight in the account's time zone (not UTC), the usage report
// cached for five minutes, and no X-HubSpot-RateLimit-Daily* headers on answers to OAuth tokens.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { checkAgainstSpec } from '../../sandbox/hubspot/openapi-check.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let clock: number;
let hubspot: HubSpotSandbox;

beforeEach(async () => {
  clock = Date.parse('2026-11-26T04:30:00.000Z'); // 23:30 on 25 November in New York (UTC-5)
  hubspot = await startHubSpotSandbox({ now: () => new Date(clock), dailyLimit: 1000, searchPerSecond: 1000 });
});
afterEach(() => hubspot.stop());

async function get(path: string, token = hubspot.accessToken): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${hubspot.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json(), headers: response.headers };
}
const usage = async (path = '/account-info/v3/api-usage/daily/private-apps') => (await get(path)).body.results[0];

describe('HubSpot sandbox: account details', () => {
  it('answers the account id and its time zone, US/Eastern unless set, as the published spec types them', async () => {
    const { status, body } = await get('/account-info/v3/details');
    expect(status).toBe(200);
    expect(body).toMatchObject({ portalId: 4242, timeZone: 'US/Eastern', utcOffset: '-05:00', utcOffsetMilliseconds: -18_000_000 });
    expect(checkAgainstSpec('GET', '/account-info/v3/details', 200, body).errors).toEqual([]);
    await control(hubspot, 'POST', '/account', { timeZone: 'Asia/Kolkata' });
    expect((await get('/account-info/v3/details')).body).toMatchObject({ timeZone: 'Asia/Kolkata', utcOffset: '+05:30', utcOffsetMilliseconds: 19_800_000 });
    await expect(control(hubspot, 'POST', '/account', { timeZone: 'Mars/Olympus' })).rejects.toThrow(/400/);
  });
});

describe('HubSpot sandbox: the daily limit follows the account\'s day', () => {
  it('usage and resetsAt (the account\'s next midnight) on both paths, valid against the spec', async () => {
    await get('/crm/v3/objects/deals');
    const report = await usage();
    // The deals call and the usage call itself: it counts against the limits.
    expect(report).toMatchObject({ name: 'private-apps-api-calls-daily', usageLimit: 1000, currentUsage: 2, fetchStatus: 'SUCCESS', resetsAt: '2026-11-26T05:00:00.000Z' });
    const legacy = await get('/account-info/v3/api-usage/daily');
    expect(checkAgainstSpec('GET', '/account-info/v3/api-usage/daily', 200, legacy.body).errors).toEqual([]);
    expect(legacy.body.results[0]).toMatchObject({ name: 'api-calls-daily', resetsAt: '2026-11-26T05:00:00.000Z' });
    // The private-apps path answers the same schema (HubSpot's reference page for it; not in the published spec file).
    expect(checkAgainstSpec('GET', '/account-info/v3/api-usage/daily', 200, (await get('/account-info/v3/api-usage/daily/private-apps')).body).errors).toEqual([]);
  });

  it('resets at midnight in the account\'s time zone, not at midnight UTC', async () => {
    await control(hubspot, 'POST', '/limits', { dailyUsed: 1000 });
    expect((await get('/crm/v3/objects/deals')).body).toMatchObject({ policyName: 'DAILY' });
    clock = Date.parse('2026-11-26T04:59:59.999Z'); // 23:59:59.999 in New York
    expect((await get('/crm/v3/objects/deals')).status).toBe(429);
    clock = Date.parse('2026-11-26T05:00:00.000Z'); // midnight in New York
    const after = await get('/crm/v3/objects/deals');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('999');

    // In Paris (UTC+1) the day turns at 23:00 UTC.
    await control(hubspot, 'POST', '/account', { timeZone: 'Europe/Paris' });
    await control(hubspot, 'POST', '/limits', { dailyUsed: 1000 });
    clock = Date.parse('2026-11-26T22:59:59.000Z');
    expect((await get('/crm/v3/objects/deals')).status).toBe(429);
    expect((await control(hubspot, 'GET', '/limits')).resetsAt).toBe('2026-11-26T23:00:00.000Z');
    clock = Date.parse('2026-11-26T23:00:00.000Z');
    expect((await get('/crm/v3/objects/deals')).status).toBe(200);
  });

  it('the usage report is a snapshot cached for five minutes', async () => {
    const first = await usage();
    await get('/crm/v3/objects/deals');
    await get('/crm/v3/objects/deals');
    clock += 4 * 60_000;
    expect(await usage()).toMatchObject({ currentUsage: first.currentUsage, fetchStatus: 'CACHED', collectedAt: first.collectedAt });
    clock += 60_000;
    expect(await usage()).toMatchObject({ currentUsage: first.currentUsage + 4, fetchStatus: 'SUCCESS' });
  });
});

describe('HubSpot sandbox: rate-limit headers by kind of token', () => {
  it('answers to an OAuth access token carry the ten-secondly headers but no Daily ones; a private app\'s carry both', async () => {
    const token = await fetch(`${hubspot.baseUrl}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: hubspot.oauth.clientId, client_secret: hubspot.oauth.clientSecret, refresh_token: hubspot.oauth.refreshToken }),
    });
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const oauth = await get('/crm/v3/objects/deals', accessToken);
    expect(oauth.status).toBe(200);
    expect(oauth.headers.get('x-hubspot-ratelimit-max')).toBe('190');
    expect(oauth.headers.get('x-hubspot-ratelimit-daily')).toBeNull();
    expect(oauth.headers.get('x-hubspot-ratelimit-daily-remaining')).toBeNull();
    const app = await get('/crm/v3/objects/deals');
    expect(app.headers.get('x-hubspot-ratelimit-daily')).toBe('1000');
    // The OAuth call counted against the account's day all the same.
    expect(app.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('998');
  });
});
