// Salesforce sandbox: refresh token rotation (docs/crm-wire-behaviour.md, "Rotating refresh tokens"),
// driven with plain fetch and jsforce 3. With rotation on, each refresh_token grant answers a new
// refresh token and the one used is refused from then on; reusing a rotated-out token revokes the
// current one and the family's access tokens, until a new authorisation. Off (the default), the refresh
// token stays the same and no refresh_token is answered.
import jsforce from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let rotating: SalesforceSandbox;

beforeAll(async () => {
  [sandbox, rotating] = await Promise.all([startSalesforceSandbox(), startSalesforceSandbox({ rotateRefreshTokens: true })]);
});
afterAll(() => Promise.all([sandbox?.stop(), rotating?.stop()]));
beforeEach(() => Promise.all([control(sandbox, 'POST', '/reset'), control(rotating, 'POST', '/reset')]));

async function refresh(org: SalesforceSandbox, refreshToken: string): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${org.loginUrl}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: org.clientId, client_secret: org.clientSecret }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const expired = { error: 'invalid_grant', error_description: 'expired access/refresh token' };

describe('Salesforce sandbox: refresh tokens', () => {
  it('without rotation keeps the refresh token and answers none', async () => {
    for (let i = 0; i < 3; i += 1) {
      const { status, body } = await refresh(sandbox, sandbox.refreshToken);
      expect(status).toBe(200);
      expect(body).not.toHaveProperty('refresh_token');
    }
    expect(await control(sandbox, 'GET', '/oauth/refresh-tokens')).toEqual({ rotate: false, current: sandbox.refreshToken, rotations: 0, reuses: 0 });
  });

  it('with rotation answers a new refresh token each time and refuses the one used', async () => {
    const first = await refresh(rotating, rotating.refreshToken);
    expect(first.status).toBe(200);
    const second = first.body.refresh_token!;
    expect(second).toMatch(/^5Aep861/);
    expect(second).not.toBe(rotating.refreshToken);

    const next = await refresh(rotating, second);
    expect(next.status).toBe(200);
    const third = next.body.refresh_token!;
    expect(new Set([rotating.refreshToken, second, third]).size).toBe(3);
    expect(await control(rotating, 'GET', '/oauth/refresh-tokens')).toEqual({ rotate: true, current: third, rotations: 2, reuses: 0 });

    // An access token of the family still works after a normal rotation.
    const session = await fetch(`${rotating.instanceUrl}/services/data/v62.0/limits`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect(session.status).toBe(200);
  });

  it('revokes the family when a rotated-out token comes back: the current token and its access tokens die', async () => {
    const first = await refresh(rotating, rotating.refreshToken);
    const current = first.body.refresh_token!;
    const reused = await refresh(rotating, rotating.refreshToken);
    expect(reused).toEqual({ status: 400, body: expired });
    expect(await refresh(rotating, current)).toEqual({ status: 400, body: expired });
    const session = await fetch(`${rotating.instanceUrl}/services/data/v62.0/limits`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect(session.status).toBe(401);
    expect(await control(rotating, 'GET', '/oauth/refresh-tokens')).toMatchObject({ current: null, reuses: 1 });

    // A person signing in again: a new family works, the old tokens stay refused.
    const { current: fresh } = await control(rotating, 'POST', '/oauth/refresh-tokens', { authorize: true });
    expect((await refresh(rotating, fresh)).status).toBe(200);
    expect(await refresh(rotating, current)).toEqual({ status: 400, body: expired });
  });

  it('rotates for jsforce, whose OAuth2 client hands the new token back', async () => {
    const oauth2 = new jsforce.OAuth2({ loginUrl: rotating.loginUrl, clientId: rotating.clientId, clientSecret: rotating.clientSecret });
    const answer = await oauth2.refreshToken(rotating.refreshToken);
    expect(answer.refresh_token).toBe((await control(rotating, 'GET', '/oauth/refresh-tokens')).current);
    await expect(oauth2.refreshToken(rotating.refreshToken)).rejects.toMatchObject({ name: 'invalid_grant', message: 'expired access/refresh token' });
  });

  it('turns rotation on and off while running, and refuses a bad control body', async () => {
    expect(await control(sandbox, 'POST', '/oauth/refresh-tokens', { rotate: true })).toMatchObject({ rotate: true });
    const rotated = await refresh(sandbox, sandbox.refreshToken);
    expect(rotated.body.refresh_token).toBeDefined();
    await control(sandbox, 'POST', '/oauth/refresh-tokens', { rotate: false });
    const kept = await refresh(sandbox, rotated.body.refresh_token!);
    expect(kept.status).toBe(200);
    expect(kept.body).not.toHaveProperty('refresh_token');
    await expect(control(sandbox, 'POST', '/oauth/refresh-tokens', { rotate: 'yes' })).rejects.toThrow(/HTTP 400 .*rotate must be true or false/);
  });
});
