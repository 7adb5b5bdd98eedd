// Salesforce sandbox: the daily API allowance (Sforce-Limit-Info, /limits, REQUEST_LIMIT_EXCEEDED),
// injected faults, and the /_sandbox controls — seen through jsforce where jsforce is involved.
import jsforce, { type Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
let clockMs = Date.parse('2026-03-01T22:00:00Z');
const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${sandbox.instanceUrl}/services/data/v62.0${path}`, { ...init, headers: { authorization: `Bearer ${conn.accessToken}`, ...(init.headers ?? {}) } });

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ dailyApiLimit: 1000, now: () => new Date(clockMs) });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  ({ conn } = await clientCredentialsConnection(sandbox));
});

describe('Salesforce sandbox: daily API allowance', () => {
  it('reports usage in Sforce-Limit-Info, which jsforce exposes as limitInfo.apiUsage; tokens are free', async () => {
    await conn.query('SELECT Id FROM Account');
    expect(conn.limitInfo.apiUsage).toEqual({ used: 1, limit: 1000 });
    await conn.sobject('Account').upsert([{ Name: 'A', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    expect(conn.limitInfo.apiUsage).toEqual({ used: 2, limit: 1000 });
    const limits = await conn.limits();
    expect(limits.DailyApiRequests).toEqual({ Max: 1000, Remaining: 997 });
    const raw = await api('/sobjects/Account/describe');
    expect(raw.headers.get('sforce-limit-info')).toBe('api-usage=4/1000');
  });

  it('answers 403 REQUEST_LIMIT_EXCEEDED once the allowance is used up, until the next day', async () => {
    await control(sandbox, 'POST', '/limits', { dailyApiLimit: 5, used: 4 });
    await conn.query('SELECT Id FROM Account');
    const error = await errorOf(conn.sobject('Account').upsert([{ Name: 'A', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c'));
    expect(error).toMatchObject({ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' });
    expect(conn.limitInfo.apiUsage).toEqual({ used: 5, limit: 5 });
    expect(await control(sandbox, 'GET', '/records/Account')).toEqual([]);
    const raw = await api('/limits');
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual([{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);

    clockMs += 3 * 3600_000; // past midnight UTC
    await expect(conn.query('SELECT Id FROM Account')).resolves.toMatchObject({ totalSize: 0 });
    expect(conn.limitInfo.apiUsage).toEqual({ used: 1, limit: 5 });
  });

  it('takes its limit from the dailyApiLimit option', async () => {
    const small = await startSalesforceSandbox({ dailyApiLimit: 2 });
    try {
      const { conn: c } = await clientCredentialsConnection(small);
      await c.query('SELECT Id FROM Account');
      await c.query('SELECT Id FROM Account');
      await expect(c.query('SELECT Id FROM Account')).rejects.toMatchObject({ errorCode: 'REQUEST_LIMIT_EXCEEDED' });
    } finally {
      await small.stop();
    }
  });
});

describe('Salesforce sandbox: faults and controls', () => {
  it('injects 500s per endpoint kind; jsforce does not retry a PATCH', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'composite-upsert', rate500: 1 });
    await control(sandbox, 'POST', '/calls/reset');
    const error = await errorOf(conn.sobject('Account').upsert([{ Name: 'A', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c'));
    expect(error).toMatchObject({ errorCode: 'UNKNOWN_EXCEPTION', message: expect.stringMatching(/^An unexpected error occurred/) });
    await expect(conn.query('SELECT Id FROM Account')).resolves.toMatchObject({ totalSize: 0 }); // other kinds untouched
    expect(await callCounts(sandbox)).toEqual({ 'composite-upsert': 1, query: 1, total: 2 });
    await control(sandbox, 'DELETE', '/faults');
    await expect(conn.sobject('Account').upsert([{ Name: 'A', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c')).resolves.toHaveLength(1);
  });

  it('injects 503s that jsforce retries for GET requests', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'query', rate503: 1 });
    await control(sandbox, 'POST', '/calls/reset');
    const pending = conn.query('SELECT Id FROM Account');
    const settled = Promise.resolve(pending).then(() => 'resolved', () => 'rejected');
    // jsforce waits 500 ms before its first retry: lift the fault meanwhile.
    for (let i = 0; i < 50 && ((await callCounts(sandbox)).query ?? 0) < 1; i++) await new Promise((r) => setTimeout(r, 5));
    await control(sandbox, 'DELETE', '/faults');
    expect(await settled).toBe('resolved');
    expect((await callCounts(sandbox)).query).toBe(2);
  });

  it('answers 429 with Retry-After, delays by latencyMs, and can expire sessions', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'limits', rate429: 1 });
    const throttled = await api('/limits');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(await throttled.json()).toEqual([{ message: 'ConcurrentPerOrgLongTxn Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);

    await control(sandbox, 'POST', '/faults', { endpoint: 'describe*', latencyMs: 150 });
    const started = performance.now();
    await conn.sobject('Account').describe();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    const faults = await control(sandbox, 'POST', '/faults', { expireSessions: true });
    expect(faults.faults.map((f: { endpoint: string }) => f.endpoint)).toEqual(['limits', 'describe*']);
    const expired = await api('/sobjects');
    expect(expired.status).toBe(401);
    await expect(control(sandbox, 'POST', '/faults', { rate500: 2 })).rejects.toThrow(/HTTP 400/);
  });

  it('answers unknown resources with NOT_FOUND and wrong methods with 405, both as JSON arrays', async () => {
    const missing = await errorOf(conn.request('/nothing/here'));
    expect(missing).toMatchObject({ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' });
    const wrongMethod = await api('/query', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual([{ message: "HTTP Method 'DELETE' not allowed. Allowed are GET", errorCode: 'METHOD_NOT_ALLOWED' }]);
  });

  it('resets to an empty org: records, calls, faults and sessions', async () => {
    await conn.sobject('Account').upsert([{ Name: 'A', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    await control(sandbox, 'POST', '/faults', { endpoint: 'query', rate500: 1 });
    const [record] = await control(sandbox, 'GET', '/records/Account');
    expect(Object.keys(record).sort()).toEqual(
      ['Id', 'IsDeleted', 'Name', 'OwnerId', 'Commerce_Buyer_Id__c', 'Marketplace__c', 'Marketplace_Account_Id__c', 'Marketplace_Status__c', 'Has_Live_Marketplace_Agreement__c', 'BillingCountry', 'Website', 'Description', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'].sort(),
    );
    await control(sandbox, 'POST', '/reset');
    expect(await control(sandbox, 'GET', '/records/Account')).toEqual([]);
    expect(await callCounts(sandbox)).toEqual({ total: 0 });
    expect(await control(sandbox, 'GET', '/faults')).toEqual({ faults: [], injected: {} });
    const stale = new jsforce.Connection({ instanceUrl: sandbox.instanceUrl, accessToken: conn.accessToken!, version: '62.0' });
    await expect(stale.query('SELECT Id FROM Account')).rejects.toMatchObject({ errorCode: 'INVALID_SESSION_ID' });
    await expect(control(sandbox, 'GET', '/records/Lead')).rejects.toThrow(/HTTP 404/);
  });
});
