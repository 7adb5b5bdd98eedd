// HubSpot sandbox: credentials an admin revokes, seen through the real client. Uninstalling the OAuth
// app refuses its refresh token (400 BAD_REFRESH_TOKEN) and every access token issued from it (401);
// expiring the private app's token now refuses that token (401); each leaves the other credentials
// alone, and restore makes the revoked ones work again.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const deals = (accessToken: string) => new Client({ accessToken, basePath: sandbox.baseUrl, numberOfApiCallRetries: 0 }).crm.deals.basicApi.getPage();
const refresh = () => {
  const { clientId, clientSecret, refreshToken } = sandbox.oauth;
  return new Client({ basePath: sandbox.baseUrl, numberOfApiCallRetries: 0 }).oauth.tokensApi.create('refresh_token', undefined, undefined, clientId, clientSecret, refreshToken);
};
const NOT_FOUND = { status: 'error', category: 'INVALID_AUTHENTICATION', message: expect.stringContaining('Authentication credentials not found') };

beforeAll(async () => {
  sandbox = await startHubSpotSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
});

describe('HubSpot sandbox: revoked credentials', () => {
  it('an uninstalled OAuth app: its refresh token is BAD_REFRESH_TOKEN, its access tokens are gone, the private app still works', async () => {
    const before = await refresh();
    expect(await control(sandbox, 'POST', '/tokens/revoke', { app: 'oauth' })).toEqual({ ok: true, revoked: ['oauth'] });

    const refused = await errorOf(refresh());
    expect(refused.code).toBe(400);
    expect(typeof refused.body === 'string' ? JSON.parse(refused.body) : refused.body).toMatchObject({ status: 'BAD_REFRESH_TOKEN' });
    const gone = await errorOf(deals(before.accessToken));
    expect(gone.code).toBe(401);
    expect(gone.body).toMatchObject(NOT_FOUND);
    await expect(deals(sandbox.accessToken)).resolves.toMatchObject({ results: [] });
  });

  it("a private app's token expired now answers 401 INVALID_AUTHENTICATION; OAuth still works", async () => {
    expect(await control(sandbox, 'POST', '/tokens/revoke', { app: 'private-app' })).toEqual({ ok: true, revoked: ['private-app'] });
    const refused = await errorOf(deals(sandbox.accessToken));
    expect(refused.code).toBe(401);
    expect(refused.body).toMatchObject(NOT_FOUND);
    await expect(deals((await refresh()).accessToken)).resolves.toMatchObject({ results: [] });
  });

  it('without app both are revoked; restore makes them work again, but tokens forgotten at the uninstall stay forgotten', async () => {
    const before = await refresh();
    expect(await control(sandbox, 'POST', '/tokens/revoke')).toEqual({ ok: true, revoked: ['oauth', 'private-app'] });
    expect((await errorOf(deals(sandbox.accessToken))).code).toBe(401);
    expect((await errorOf(refresh())).code).toBe(400);

    expect(await control(sandbox, 'POST', '/tokens/restore')).toEqual({ ok: true });
    await expect(deals(sandbox.accessToken)).resolves.toMatchObject({ results: [] });
    await expect(deals((await refresh()).accessToken)).resolves.toMatchObject({ results: [] });
    expect((await errorOf(deals(before.accessToken))).code).toBe(401);
  });

  it('a reset lifts revocations; an unknown app is refused naming the choices, revoking nothing', async () => {
    await control(sandbox, 'POST', '/tokens/revoke');
    await control(sandbox, 'POST', '/reset');
    await expect(deals(sandbox.accessToken)).resolves.toMatchObject({ results: [] });

    await expect(control(sandbox, 'POST', '/tokens/revoke', { app: 'everything' })).rejects.toThrow(/HTTP 400 .*oauth.*private-app/);
    await expect(deals(sandbox.accessToken)).resolves.toMatchObject({ results: [] });
  });
});
