// Salesforce sandbox: OAuth grants and sessions, driven by jsforce 3 itself.
import jsforce from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let clockMs = Date.parse('2026-03-01T09:00:00Z');

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ sessionTtlSeconds: 600, now: () => new Date(clockMs) });
});
afterAll(() => sandbox.stop());
beforeEach(() => control(sandbox, 'POST', '/reset'));

describe('Salesforce sandbox: OAuth', () => {
  it('logs jsforce in with the client-credentials grant and answers what jsforce parses', async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    expect(conn.instanceUrl).toBe(sandbox.instanceUrl);
    expect(conn.accessToken).toMatch(/^00D[A-Za-z0-9]{12}!/);
    expect(conn.refreshToken).toBeUndefined(); // client credentials never hands out a refresh token
    expect(conn.userInfo).toMatchObject({ organizationId: expect.stringMatching(/^00D\w{15}$/), id: expect.stringMatching(/^005\w{15}$/) });
    expect(conn.userInfo!.url).toBe(`${sandbox.loginUrl}/id/${conn.userInfo!.organizationId}/${conn.userInfo!.id}`);
    const identity = await conn.identity();
    expect(identity).toMatchObject({ user_id: conn.userInfo!.id, organization_id: conn.userInfo!.organizationId });
  });

  it('sends the token fields Salesforce sends, and signs id + issued_at', async () => {
    const response = await fetch(`${sandbox.loginUrl}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'id', 'instance_url', 'issued_at', 'scope', 'signature', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', instance_url: sandbox.instanceUrl, issued_at: String(clockMs) });
    const { createHmac } = await import('node:crypto');
    expect(body.signature).toBe(createHmac('sha256', sandbox.clientSecret).update(body.id! + body.issued_at).digest('base64'));
  });

  it('refuses bad credentials with OAuth errors that jsforce names', async () => {
    const badSecret = new jsforce.Connection({ oauth2: { loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: 'wrong' }, version: '62.0' });
    await expect(badSecret.authorize({ grant_type: 'client_credentials' })).rejects.toMatchObject({ name: 'invalid_client', message: 'invalid client credentials' });
    const badClient = new jsforce.Connection({ oauth2: { loginUrl: sandbox.loginUrl, clientId: 'nobody', clientSecret: sandbox.clientSecret }, version: '62.0' });
    await expect(badClient.authorize({ grant_type: 'client_credentials' })).rejects.toMatchObject({ name: 'invalid_client_id', message: 'client identifier invalid' });
    const oauth2 = new jsforce.OAuth2({ loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
    await expect(oauth2.refreshToken('not-the-token')).rejects.toMatchObject({ name: 'invalid_grant', message: 'expired access/refresh token' });
    await expect(oauth2.authenticate('user@example.com', 'pw')).rejects.toMatchObject({ name: 'unsupported_grant_type' });
  });

  it('serves the refresh-token grant, which jsforce uses on its own when it holds a refresh token', async () => {
    const oauth2 = new jsforce.OAuth2({ loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
    const token = await oauth2.refreshToken(sandbox.refreshToken);
    expect(token).toMatchObject({ instance_url: sandbox.instanceUrl, token_type: 'Bearer' });
    expect(token.refresh_token).toBeUndefined(); // no rotation: the client keeps its refresh token

    // No access token at all: the first call gets 401, jsforce refreshes with the refresh token and replays.
    const conn = new jsforce.Connection({ oauth2: { loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret }, instanceUrl: sandbox.instanceUrl, refreshToken: sandbox.refreshToken, version: '62.0' });
    await control(sandbox, 'POST', '/calls/reset');
    const result = await conn.query('SELECT Id FROM Account');
    expect(result.totalSize).toBe(0);
    expect(await callCounts(sandbox)).toMatchObject({ token: 1, query: 2 });
  });

  it('expires every session on demand; jsforce calls refreshFn and replays the request', async () => {
    const { conn, refreshes } = await clientCredentialsConnection(sandbox);
    await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    const before = conn.accessToken;
    await control(sandbox, 'POST', '/sessions/expire');
    await control(sandbox, 'POST', '/calls/reset');
    const results = await conn.sobject('Account').upsert([{ Name: 'Acme 2', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    expect(results).toEqual([expect.objectContaining({ success: true, created: false })]);
    expect(refreshes()).toBe(1);
    expect(conn.accessToken).not.toBe(before);
    expect(await callCounts(sandbox)).toMatchObject({ token: 1, 'composite-upsert': 2, total: 3 });
  });

  it('ends a session after its lifetime with 401 INVALID_SESSION_ID', async () => {
    const { conn, refreshes } = await clientCredentialsConnection(sandbox);
    const token = conn.accessToken!;
    clockMs += 601_000;
    const raw = await fetch(`${sandbox.instanceUrl}/services/data/v62.0/limits`, { headers: { authorization: `Bearer ${token}` } });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await raw.json()).toEqual([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    // jsforce recovers through refreshFn.
    await expect(conn.limits()).resolves.toHaveProperty('DailyApiRequests');
    expect(refreshes()).toBe(1);

    // A connection without any way to refresh surfaces the error code.
    const bare = new jsforce.Connection({ instanceUrl: sandbox.instanceUrl, accessToken: token, version: '62.0' });
    await expect(bare.limits()).rejects.toMatchObject({ errorCode: 'INVALID_SESSION_ID', message: 'Session expired or invalid' });
  });

  it('re-authenticates Bulk API 2.0 calls too', async () => {
    const { conn, refreshes } = await clientCredentialsConnection(sandbox);
    await control(sandbox, 'POST', '/sessions/expire');
    conn.bulk2.pollInterval = 20;
    const results = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'insert', input: [{ Name: 'Bulk Co' }] });
    expect(results.successfulResults).toHaveLength(1);
    expect(refreshes()).toBe(1);
  });
});
