// Salesforce's token endpoint refusing the connection's credentials, at login and when jsforce renews
// an expired session: every refusal Salesforce documents becomes CrmCredentialsRefusedError (never
// retried) with Salesforce's own code and description, and never the client secret. A login that fails
// for a passing reason (5xx, no answer in time) stays retryable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmCredentialsRefusedError, CrmError, type UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import type { SalesforceSettings } from '../../crm/salesforce/session.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

const REFUSALS = [
  { error: 'inactive_user', error_description: 'user is inactive' },
  { error: 'inactive_org', error_description: 'organization is locked, closed, or suspended' },
  { error: 'unauthorized_client', error_description: 'client credentials flow is not enabled for this connected app' },
  { error: 'invalid_client_id', error_description: 'client identifier invalid' },
  { error: 'invalid_client', error_description: 'invalid client credentials' },
  { error: 'invalid_grant', error_description: 'expired access/refresh token' },
];

const account: UpsertItem[] = [{ sourceId: 'b-1', externalIdField: 'Commerce_Buyer_Id__c', externalId: 'b-1', fields: { Name: 'Buyer' } }];

describe('Salesforce connector: refused credentials', () => {
  let sandbox: SalesforceSandbox;
  const connector = (settings: Partial<SalesforceSettings> = {}, refreshToken?: string) =>
    createSalesforceConnector({ loginUrl: sandbox.loginUrl, minRetryDelayMs: 10, ...settings }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken });
  const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as CrmError);
  /** Everything an error could carry into a log or a history: message, own properties, causes. */
  const everything = (error: unknown): string => {
    const parts: string[] = [];
    for (let current = error as Error | undefined; current; current = current.cause as Error | undefined) {
      parts.push(String(current), current.stack ?? '', JSON.stringify(current, Object.getOwnPropertyNames(current)));
    }
    return parts.join('\n');
  };
  const expectRefusal = (error: CrmError | undefined, refusal: (typeof REFUSALS)[number]) => {
    expect(error).toBeInstanceOf(CrmCredentialsRefusedError);
    expect(error).toMatchObject({ code: refusal.error, retryable: false });
    expect(error!.message).toMatch(/^Salesforce refused the connection's credentials \(client id sf-sandbox-client\): /);
    expect(error!.message).toContain(`Salesforce said: ${refusal.error}: ${refusal.error_description}.`);
    expect(everything(error)).not.toContain(sandbox.clientSecret);
  };

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  for (const refusal of REFUSALS) {
    it(`refuses at login on ${refusal.error}, with one token request`, async () => {
      await control(sandbox, 'POST', '/oauth/refusal', refusal);
      const error = await errorOf(connector().verify());
      expectRefusal(error, refusal);
      expect(await callCounts(sandbox)).toEqual({ token: 1, total: 1 });
    });

    it(`refuses on ${refusal.error} when jsforce renews an expired session, without retrying`, async () => {
      const sf = connector();
      await sf.verify();
      await control(sandbox, 'POST', '/oauth/refusal', refusal);
      await control(sandbox, 'POST', '/sessions/expire');
      await control(sandbox, 'POST', '/calls/reset');
      const error = await errorOf(sf.upsert('Account', account));
      expectRefusal(error, refusal);
      expect(await callCounts(sandbox)).toEqual({ 'composite-upsert': 1, token: 1, total: 2 });
    });
  }

  it('refuses a revoked refresh token, at login and on renewal, in the refresh-token flow', async () => {
    const revoked = await errorOf(connector({}, 'revoked-token').verify());
    expectRefusal(revoked, { error: 'invalid_grant', error_description: 'expired access/refresh token' });

    const sf = connector({}, sandbox.refreshToken);
    await sf.verify();
    const refusal = { error: 'inactive_user', error_description: 'user is inactive' };
    await control(sandbox, 'POST', '/oauth/refusal', refusal);
    await control(sandbox, 'POST', '/sessions/expire');
    expectRefusal(await errorOf(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['b-1'])), refusal);
  });

  it('keeps a login that failed for a passing reason retryable: a 500, no answer in time, a 500 on renewal', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'token', rate500: 1 });
    const unavailable = await errorOf(connector().verify());
    expect(unavailable).toBeInstanceOf(CrmError);
    expect(unavailable).not.toBeInstanceOf(CrmCredentialsRefusedError);
    expect(unavailable).toMatchObject({ code: 'LOGIN_UNAVAILABLE', retryable: true });
    expect(everything(unavailable)).not.toContain(sandbox.clientSecret);

    await control(sandbox, 'POST', '/faults', { endpoint: 'token', latencyMs: 2000 });
    const started = performance.now();
    const slow = await errorOf(connector({ requestTimeoutMs: 200 }).verify());
    expect(performance.now() - started).toBeLessThan(1500);
    expect(slow).toMatchObject({ code: 'LOGIN_UNAVAILABLE', retryable: true });
    expect(slow!.message).toMatch(/Salesforce did not answer within 0\.2 s \(http:\/\/127\.0\.0\.1:\d+\/services\/oauth2\/token\)/);

    await control(sandbox, 'DELETE', '/faults');
    const sf = connector({ retries: 0 });
    await sf.verify();
    await control(sandbox, 'POST', '/faults', { endpoint: 'token', rate500: 1 });
    await control(sandbox, 'POST', '/sessions/expire');
    const renewal = await errorOf(sf.upsert('Account', account));
    expect(renewal).not.toBeInstanceOf(CrmCredentialsRefusedError);
    expect(renewal).toMatchObject({ code: 'LOGIN_UNAVAILABLE', retryable: true });
    await control(sandbox, 'DELETE', '/faults');
    await expect(sf.upsert('Account', account)).resolves.toMatchObject([{ ok: true }]);
  });
});
