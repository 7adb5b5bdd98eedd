// Salesforce refusing a sign-in that no retry and no new secret can fix (docs/crm-wire-behaviour.md,
// "Sign-in refusals"): the client credentials flow sent to login.salesforce.com instead of the org's My
// Domain (invalid_grant "request not supported on this domain"), and a flow the connected app does not
// allow (unsupported_grant_type). Both are refusals (never retried), say what to change, keep
// Salesforce's code and words, and never call a refresh token revoked. The sandbox's generic login host
// is localhost; its My Domain is 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmCredentialsRefusedError, type CrmError } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

describe('Salesforce connector: sign-in refusals', () => {
  let sandbox: SalesforceSandbox;
  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ genericLoginHost: 'localhost' });
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as CrmError);
  const connector = (loginUrl: string, refreshToken?: string) =>
    createSalesforceConnector({ loginUrl, minRetryDelayMs: 10 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken });

  it('refuses client credentials sent to the generic login host, naming the host and the My Domain fix', async () => {
    const error = await errorOf(connector(sandbox.genericLoginUrl!).verify());
    expect(error).toBeInstanceOf(CrmCredentialsRefusedError);
    expect(error).toMatchObject({ code: 'invalid_grant', retryable: false });
    const host = new URL(sandbox.genericLoginUrl!).host;
    expect(error!.message).toMatch(new RegExp(`^Salesforce refused the client credentials flow on ${host} \\(client id sf-sandbox-client\\): use your org's My Domain login URL`));
    expect(error!.message).toContain('https://<your domain>.my.salesforce.com');
    expect(error!.message).toContain('--salesforce-login-url');
    expect(error!.message).toContain('Salesforce said: invalid_grant: request not supported on this domain.');
    expect(error!.message).not.toMatch(/refresh token|revoked/i);
    expect(error!.message).not.toContain(sandbox.clientSecret);
    expect(await callCounts(sandbox)).toEqual({ token: 1, total: 1 });
  });

  it('signs in with client credentials on the My Domain, and with a refresh token on the generic host', async () => {
    await expect(connector(sandbox.loginUrl).verify()).resolves.toMatchObject({ organizationId: expect.stringMatching(/^00D/) });
    await expect(connector(sandbox.genericLoginUrl!, sandbox.refreshToken).verify()).resolves.toMatchObject({ organizationId: expect.stringMatching(/^00D/) });
  });

  it('refuses a client credentials flow the connected app does not allow, at login, once, saying to enable it', async () => {
    await control(sandbox, 'POST', '/oauth/refusal', { error: 'unsupported_grant_type' });
    const error = await errorOf(connector(sandbox.loginUrl).verify());
    expect(error).toBeInstanceOf(CrmCredentialsRefusedError);
    expect(error).toMatchObject({ code: 'unsupported_grant_type', retryable: false });
    expect(error!.message).toMatch(/^Salesforce refused the client credentials flow \(client id sf-sandbox-client\): the connected app \(or External Client App\) does not allow it/);
    expect(error!.message).toContain('Enable Client Credentials Flow');
    expect(error!.message).toContain('Salesforce said: unsupported_grant_type: grant type not supported.');
    expect(error!.message).not.toMatch(/revoked/i);
    expect(await callCounts(sandbox)).toEqual({ token: 1, total: 1 });
  });

  it('refuses a refresh token flow the app does not allow without calling the token revoked', async () => {
    await control(sandbox, 'POST', '/oauth/refusal', { error: 'unsupported_grant_type' });
    const error = await errorOf(connector(sandbox.loginUrl, sandbox.refreshToken).verify());
    expect(error).toMatchObject({ code: 'unsupported_grant_type', retryable: false });
    expect(error!.message).toMatch(/^Salesforce refused the refresh token flow /);
    expect(error!.message).toContain('refresh_token, offline_access');
    expect(error!.message).not.toMatch(/revoked|expired/i);
  });

  it('refuses unsupported_grant_type on renewal too, without retrying', async () => {
    const sf = connector(sandbox.loginUrl);
    await sf.verify();
    await control(sandbox, 'POST', '/oauth/refusal', { error: 'unsupported_grant_type' });
    await control(sandbox, 'POST', '/sessions/expire');
    await control(sandbox, 'POST', '/calls/reset');
    const error = await errorOf(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['b-1']));
    expect(error).toBeInstanceOf(CrmCredentialsRefusedError);
    expect(error).toMatchObject({ code: 'unsupported_grant_type', retryable: false });
    expect(error!.message).toContain('Salesforce said: unsupported_grant_type: grant type not supported.');
    expect(await callCounts(sandbox)).toEqual({ query: 1, token: 1, total: 2 });
  });

  it('does not call a refresh token revoked when client credentials are refused with invalid_grant for another reason', async () => {
    await control(sandbox, 'POST', '/oauth/refusal', { error: 'invalid_grant', error_description: 'no client credentials user enabled' });
    const error = await errorOf(connector(sandbox.loginUrl).verify());
    expect(error).toMatchObject({ code: 'invalid_grant', retryable: false });
    expect(error!.message).toContain("Run As user");
    expect(error!.message).toContain('Salesforce said: invalid_grant: no client credentials user enabled.');
    expect(error!.message).not.toMatch(/refresh token|revoked/i);
  });
});
