// Salesforce sandbox: the generic login host (docs/crm-wire-behaviour.md, "Sign-in refusals"). The
// sandbox listens on 127.0.0.1, its My Domain; `genericLoginHost: 'localhost'` makes requests whose Host
// is localhost stand for login.salesforce.com, which refuses the client credentials flow with
// invalid_grant "request not supported on this domain" and serves the refresh token flow, naming the
// org's My Domain as the instance URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';

let sandbox: SalesforceSandbox;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ genericLoginHost: 'localhost' });
});
afterAll(() => sandbox?.stop());

async function token(loginUrl: string, form: Record<string, string>) {
  const response = await fetch(`${loginUrl}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: sandbox.clientId, client_secret: sandbox.clientSecret, ...form }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe('Salesforce sandbox: generic login host', () => {
  it('names the generic login URL beside the My Domain one', () => {
    const port = new URL(sandbox.loginUrl).port;
    expect(sandbox.loginUrl).toBe(`http://127.0.0.1:${port}`);
    expect(sandbox.genericLoginUrl).toBe(`http://localhost:${port}`);
  });

  it('refuses client credentials on the generic host, as login.salesforce.com does', async () => {
    expect(await token(sandbox.genericLoginUrl!, { grant_type: 'client_credentials' })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'request not supported on this domain' },
    });
  });

  it('grants client credentials on the My Domain', async () => {
    const { status, body } = await token(sandbox.loginUrl, { grant_type: 'client_credentials' });
    expect(status).toBe(200);
    expect(body.instance_url).toBe(sandbox.instanceUrl);
  });

  it('serves the refresh token flow on the generic host, with the My Domain as instance URL', async () => {
    const { status, body } = await token(sandbox.genericLoginUrl!, { grant_type: 'refresh_token', refresh_token: sandbox.refreshToken });
    expect(status).toBe(200);
    expect(body.instance_url).toBe(sandbox.instanceUrl);
  });
});
