// Every Salesforce call is bounded in time (jsforce alone waits up to 30 minutes) and in sockets: a call
// that gets no answer in time fails fast with a clear, retryable error, and is retried safely.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jsforce from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmError, type UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import type { SalesforceSettings } from '../../crm/salesforce/session.ts';
import { SOCKETS_PER_SALESFORCE_ORIGIN } from '../../crm/salesforce/transport.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

const account: UpsertItem[] = [{ sourceId: 'b-1', externalIdField: 'Commerce_Buyer_Id__c', externalId: 'b-1', fields: { Name: 'Buyer' } }];

describe('Salesforce connector: time limits and sockets', () => {
  let sandbox: SalesforceSandbox;
  const connector = (settings: Partial<SalesforceSettings> = {}) =>
    createSalesforceConnector({ loginUrl: sandbox.loginUrl, minRetryDelayMs: 10, ...settings }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
  const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as CrmError);

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('fails a call that gets no answer in time fast, with a retryable error that says so (and no SOQL in it)', async () => {
    const sf = connector({ requestTimeoutMs: 200, retries: 0 });
    await sf.verify();
    await control(sandbox, 'POST', '/faults', { endpoint: 'query', latencyMs: 3000 });
    const started = performance.now();
    const error = await errorOf(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ["secret-ish 'value'"]));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', retryable: true });
    expect(error!.message).toMatch(/^Salesforce did not answer within 0\.2 s \(http:\/\/127\.0\.0\.1:\d+\/services\/data\/v62\.0\/query\); retrying$/);
  });

  it('an answer cut off half way (carried out, connection dropped) is a retryable error, never a crash of the process', async () => {
    const sf = connector({ retries: 0 });
    await sf.verify();
    await control(sandbox, 'POST', '/faults', { endpoint: 'query', truncatedRate: 1 });
    // Without whole-answers.ts jsforce's stream pipe throws this outside any promise: vitest reports it
    // as an unhandled error and the run fails.
    const error = await errorOf(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['b-1']));
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ retryable: true });
    await control(sandbox, 'DELETE', '/faults');
    await expect(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['b-1'])).resolves.toBeInstanceOf(Map);
  });

  it('retries a write that timed out, and the record exists once', async () => {
    const sf = connector({ requestTimeoutMs: 300, retries: 3 });
    await sf.verify();
    await control(sandbox, 'POST', '/faults', { endpoint: 'composite-upsert', latencyMs: 1000 });
    await control(sandbox, 'POST', '/calls/reset');
    const pending = sf.upsert('Account', account);
    // Once the first attempt has reached Salesforce (which will still save it), the org answers quickly again.
    while (((await callCounts(sandbox))['composite-upsert'] ?? 0) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await control(sandbox, 'DELETE', '/faults');
    const [result] = await pending;
    expect(result).toMatchObject({ ok: true, sourceId: 'b-1' });
    expect((await callCounts(sandbox))['composite-upsert']).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the first, slow attempt lands too
    const stored = await control(sandbox, 'GET', '/records/Account');
    expect(stored.map((record: { Commerce_Buyer_Id__c: string }) => record.Commerce_Buyer_Id__c)).toEqual(['b-1']);
  });

  it(`keeps at most ${SOCKETS_PER_SALESFORCE_ORIGIN} sockets open to one Salesforce origin`, async () => {
    await connector().verify(); // a connector bounds jsforce's sockets for the process
    let open = 0;
    let most = 0;
    const server: Server = createServer((req, res) => {
      open += 1;
      most = Math.max(most, open);
      setTimeout(() => {
        open -= 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }, 100);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const conn = new jsforce.Connection({ instanceUrl: origin, accessToken: 'token', version: '62.0' });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => conn.request(`/services/data/v62.0/limits?n=${index}`)));
      expect(answers).toHaveLength(30);
      expect(most).toBe(SOCKETS_PER_SALESFORCE_ORIGIN);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
