// HubSpot sandbox: who may call (private-app token, OAuth refresh, HubSpot's 401s), HubSpot's rate
// limits (ten-secondly, daily, search per second; 429 bodies and X-HubSpot-RateLimit-* headers),
// injected faults, the /_sandbox controls and the journal across a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
let clock = Date.parse('2026-05-10T12:00:00.000Z');
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const get = (token: string | undefined, p = '/crm/v3/objects/deals') => fetch(`${sandbox.baseUrl}${p}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const search = (token: string) =>
  fetch(`${sandbox.baseUrl}/crm/v3/objects/deals/search`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"filterGroups":[],"limit":1}' });

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ now: () => new Date(clock) });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  clock += 60_000;
});

describe('HubSpot sandbox: authentication', () => {
  it('answers 401 INVALID_AUTHENTICATION, as JSON, to a missing or unknown token', async () => {
    for (const token of [undefined, 'pat-na1-not-ours']) {
      const answer = await get(token);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await answer.json()).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION', message: expect.stringContaining('Authentication credentials not found') });
    }
    const viaClient = await errorOf(new Client({ accessToken: 'wrong', basePath: sandbox.baseUrl }).crm.deals.basicApi.getPage());
    expect(viaClient.code).toBe(401);
  });

  it('gives OAuth access tokens for the refresh token; they expire after expires_in, the private-app token never', async () => {
    const { clientId, clientSecret, refreshToken } = sandbox.oauth;
    const issued = await client.oauth.tokensApi.create('refresh_token', undefined, undefined, clientId, clientSecret, refreshToken);
    expect(issued).toMatchObject({ refreshToken, expiresIn: 1800, tokenType: 'bearer' });
    const oauthClient = new Client({ accessToken: issued.accessToken, basePath: sandbox.baseUrl });
    await expect(oauthClient.crm.deals.basicApi.getPage()).resolves.toMatchObject({ results: [] });

    clock += 1800 * 1000 + 120_000;
    const expired = await errorOf(oauthClient.crm.deals.basicApi.getPage());
    expect(expired.code).toBe(401);
    expect(expired.body).toMatchObject({ category: 'EXPIRED_AUTHENTICATION', message: 'The OAuth token used to make this call expired 2 minute(s) ago.' });
    await expect(client.crm.deals.basicApi.getPage()).resolves.toBeDefined();
  });

  it('expires every OAuth token at once by /_sandbox/tokens/expire, and refuses a wrong refresh token or secret', async () => {
    const { clientId, clientSecret, refreshToken } = sandbox.oauth;
    const issued = await client.oauth.tokensApi.create('refresh_token', undefined, undefined, clientId, clientSecret, refreshToken);
    expect(await control(sandbox, 'POST', '/tokens/expire')).toEqual({ ok: true, expired: 1 });
    expect(((await (await get(issued.accessToken)).json()) as any).category).toBe('EXPIRED_AUTHENTICATION');

    const badRefresh = await errorOf(client.oauth.tokensApi.create('refresh_token', undefined, undefined, clientId, clientSecret, 'na1-stolen'));
    expect(badRefresh.code).toBe(400);
    const form = (secret: string) =>
      fetch(`${sandbox.baseUrl}/oauth/v1/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', client_id: clientId, client_secret: secret, refresh_token: refreshToken }) });
    expect(await (await form('wrong')).json()).toMatchObject({ status: 'BAD_CLIENT_SECRET' });
  });
});

describe('HubSpot sandbox: rate limits', () => {
  it('puts X-HubSpot-RateLimit-* headers on every answer, counting down', async () => {
    await control(sandbox, 'POST', '/limits', { tenSecondlyLimit: 50, dailyLimit: 1000 });
    const first = await get(sandbox.accessToken);
    const second = await get(sandbox.accessToken);
    expect(first.headers.get('x-hubspot-ratelimit-max')).toBe('50');
    expect(first.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
    expect(first.headers.get('x-hubspot-ratelimit-daily')).toBe('1000');
    expect(first.headers.get('x-hubspot-ratelimit-remaining')).toBe('49');
    expect(second.headers.get('x-hubspot-ratelimit-remaining')).toBe('48');
    expect(second.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('998');
    expect(second.headers.get('x-hubspot-ratelimit-secondly')).toBe('5');
    expect(second.headers.get('x-hubspot-ratelimit-secondly-remaining')).toBe('3');
    const refused = await get(undefined);
    expect(refused.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('998');
  });

  it('refuses the call after the ten-secondly budget with HubSpot 429 body, and lets calls through ten seconds later', async () => {
    await control(sandbox, 'POST', '/limits', { tenSecondlyLimit: 3 });
    for (let i = 0; i < 3; i += 1) expect((await get(sandbox.accessToken)).status).toBe(200);
    const refused = await get(sandbox.accessToken);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
    expect(refused.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
    clock += 10_001;
    expect((await get(sandbox.accessToken)).status).toBe(200);
  });

  it('refuses everything once the daily budget is spent (policyName DAILY) until the next day', async () => {
    await control(sandbox, 'POST', '/limits', { dailyLimit: 100, dailyUsed: 100 });
    const refused = await get(sandbox.accessToken);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'DAILY', message: 'You have reached your daily limit.' });
    expect((await search(sandbox.accessToken)).status).toBe(429);
    clock += 24 * 3600 * 1000;
    expect((await get(sandbox.accessToken)).status).toBe(200);
    expect((await control(sandbox, 'GET', '/limits')).dailyUsed).toBe(1);
  });

  it('limits search per second on its own, with the secondly message the client retries on', async () => {
    await control(sandbox, 'POST', '/limits', { searchPerSecond: 2, tenSecondlyLimit: 1 });
    expect((await search(sandbox.accessToken)).status).toBe(200);
    expect((await search(sandbox.accessToken)).status).toBe(200);
    const refused = await search(sandbox.accessToken);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ message: 'You have reached your secondly limit.', errorType: 'RATE_LIMIT' });
    // Search's budget is its own: the ten-secondly one (1 call) is still whole.
    expect((await get(sandbox.accessToken)).status).toBe(200);
    clock += 1_000;
    expect((await search(sandbox.accessToken)).status).toBe(200);
  });
});

describe('HubSpot sandbox: faults and controls', () => {
  it('injects 500s and ten-secondly 429s by call kind, counts them, and clears them', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'deals.list', rate500: 1 });
    const failed = await errorOf(client.crm.deals.basicApi.getPage());
    expect(failed.code).toBe(500);
    await expect(client.crm.companies.basicApi.getPage()).resolves.toBeDefined();
    await control(sandbox, 'POST', '/faults', { endpoint: 'deals.*', rate429: 1 });
    const limited = await (await fetch(`${sandbox.baseUrl}/crm/v3/objects/deals/1`, { headers: { authorization: `Bearer ${sandbox.accessToken}` } })).json();
    expect(limited).toMatchObject({ policyName: 'TEN_SECONDLY_ROLLING', errorType: 'RATE_LIMIT' });
    expect((await control(sandbox, 'GET', '/faults')).injected).toEqual({ '429': 1, '500': 1 });
    await control(sandbox, 'DELETE', '/faults');
    await expect(client.crm.deals.basicApi.getPage()).resolves.toBeDefined();
  });

  it('slows calls down by latencyMs', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'deals.list', latencyMs: 150 });
    const started = performance.now();
    await client.crm.deals.basicApi.getPage();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('counts calls by kind, dumps records and resets to an empty account', async () => {
    await client.crm.deals.basicApi.create({ properties: { dealname: 'kept?' }, associations: [] });
    await client.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 10, after: undefined as any });
    expect(await control(sandbox, 'GET', '/calls')).toEqual({ 'deals.create': 1, 'deals.search': 1, total: 2 });
    const records = await control(sandbox, 'GET', '/records/deals');
    expect(records).toHaveLength(1);
    expect(records[0].properties.dealname).toBe('kept?');
    await control(sandbox, 'POST', '/reset');
    expect(await control(sandbox, 'GET', '/records/deals')).toEqual([]);
    expect(await control(sandbox, 'GET', '/calls')).toEqual({ total: 0 });
    const bad = await fetch(`${sandbox.controlUrl}/limits`, { method: 'POST', body: '{"tenSecondlyLimit": -1}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).message).toContain('tenSecondlyLimit');
  });
});

describe('HubSpot sandbox: journal', () => {
  it('keeps records, properties, pipelines and associations across a restart, never reissuing an id', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hubspot-journal-'));
    const journalPath = path.join(dir, 'hubspot.jsonl');
    try {
      const first = await startHubSpotSandbox({ journalPath, seed: 7 });
      const c1 = new Client({ accessToken: first.accessToken, basePath: first.baseUrl });
      await c1.crm.properties.coreApi.create('deals', { name: 'commerce_offer_id', label: 'Offer', type: 'string' as any, fieldType: 'text' as any, groupName: 'dealinformation', hasUniqueValue: true });
      const deal = (await c1.crm.deals.batchApi.upsert({ inputs: [{ idProperty: 'commerce_offer_id', id: 'o-1', properties: { dealname: 'Kept' } }] })).results[0]!;
      const company = await c1.crm.companies.basicApi.create({ properties: { name: 'Co' }, associations: [] });
      await c1.crm.associations.v4.basicApi.createDefault('deals', deal.id, 'companies', company.id);
      await c1.crm.pipelines.pipelinesApi.create('deals', { label: 'Co-sell', displayOrder: 3, stages: [{ label: 'New', displayOrder: 0, metadata: { probability: '0.1' } }] });
      await first.stop();

      const second = await startHubSpotSandbox({ journalPath, seed: 7 });
      expect(second.accessToken).toBe(first.accessToken);
      const c2 = new Client({ accessToken: second.accessToken, basePath: second.baseUrl });
      expect((await c2.crm.deals.basicApi.getById('o-1', ['dealname'], undefined, undefined, undefined, 'commerce_offer_id')).id).toBe(deal.id);
      expect((await c2.crm.properties.coreApi.getByName('deals', 'commerce_offer_id')).hasUniqueValue).toBe(true);
      expect((await c2.crm.associations.v4.basicApi.getPage('deals', deal.id, 'companies')).results).toHaveLength(1);
      expect((await c2.crm.pipelines.pipelinesApi.getAll('deals')).results.map((p) => p.label)).toContain('Co-sell');
      const next = await c2.crm.deals.basicApi.create({ properties: { dealname: 'After' }, associations: [] });
      expect(Number(next.id)).toBeGreaterThan(Math.max(Number(deal.id), Number(company.id)));
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
