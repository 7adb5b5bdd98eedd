// Salesforce sandbox: what queries cost. A filter the optimizer can drive through an index (selective:
// under the index's threshold) scans only its matching rows; anything else scans every Opportunity, and
// a query whose simulated time passes the limit answers 400 QUERY_TIMEOUT. Following a locator costs
// nothing. Also: URI and headers past 16,384 bytes are refused with 414 / 431 and a page, not JSON.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
let clockMs = Date.parse('2025-01-10T09:00:00Z');

const OLD = 10_000;
const RECENT = 450;

async function createOpportunities(count: number, tag: string, extra: Record<string, unknown> = {}) {
  const records = Array.from({ length: count }, (_, i) => ({ Name: `${tag} ${i}`, StageName: 'Prospecting', CloseDate: '2027-03-31', ...extra }));
  for (let i = 0; i < records.length; i += 200) {
    const results = await conn.sobject('Opportunity').create(records.slice(i, i + 200), { allOrNone: true });
    expect(results.every((r) => r.success)).toBe(true);
  }
}

const rawQuery = (soql: string, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.instanceUrl}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`, { headers: { authorization: `Bearer ${conn.accessToken}`, ...headers } });

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ now: () => new Date(clockMs) });
  ({ conn } = await clientCredentialsConnection(sandbox));
  // 10,000 Opportunities last changed in January 2025, 450 (shared) in March 2026.
  await createOpportunities(OLD, 'old');
  clockMs = Date.parse('2026-03-01T09:00:00Z');
  await createOpportunities(RECENT, 'recent', { Cosell_Share__c: true });
}, 120_000);
afterAll(() => sandbox.stop());
beforeEach(async () => {
  // 20 s of simulated time per 1,000 rows scanned: a scan of all 10,450 is 209 s, past the 120 s limit.
  await control(sandbox, 'POST', '/query-cost', { msPerThousandRows: 20_000, timeoutMs: 120_000 });
  await control(sandbox, 'POST', '/calls/reset');
});

describe('Salesforce sandbox: query cost', () => {
  it('a selective SystemModstamp range is read through the index: only its 450 rows are scanned', async () => {
    const result = await conn.query('SELECT Id FROM Opportunity WHERE SystemModstamp >= 2026-02-01T00:00:00Z ORDER BY SystemModstamp, Id', { autoFetch: true, maxFetch: 10_000, headers: { 'Sforce-Query-Options': 'batchSize=200' } });
    expect(result.records).toHaveLength(450);
    const cost = await control(sandbox, 'GET', '/query-cost');
    // One query (the two queryMore calls cost nothing): 450 rows, 9 s.
    expect(cost).toMatchObject({ queries: 1, rowsScanned: 450, simulatedMs: 9000, timeouts: 0, tableScans: 0, last: { leadingOperationType: 'Index', rowsScanned: 450, totalRows: 10_450 } });
    expect(await callCounts(sandbox)).toEqual({ query: 1, 'query-more': 2, total: 3 });
  });

  it('a range matching every row (a window from 1970) scans the table and answers 400 QUERY_TIMEOUT', async () => {
    const response = await rawQuery('SELECT Id FROM Opportunity WHERE SystemModstamp >= 1970-01-01T00:00:00Z ORDER BY SystemModstamp, Id');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual([{ message: 'Your query request was running for too long.', errorCode: 'QUERY_TIMEOUT' }]);
    await expect(conn.query('SELECT Id FROM Opportunity WHERE SystemModstamp >= 1970-01-01T00:00:00Z')).rejects.toMatchObject({ errorCode: 'QUERY_TIMEOUT' });
    expect(await control(sandbox, 'GET', '/query-cost')).toMatchObject({ queries: 2, timeouts: 2, tableScans: 2, simulatedMs: 240_000, last: { leadingOperationType: 'TableScan', rowsScanned: 10_450 } });
  });

  it('LastModifiedDate has no index, and neither do checkboxes: the same window by them scans the table', async () => {
    await expect(conn.query('SELECT Id FROM Opportunity WHERE LastModifiedDate >= 2026-02-01T00:00:00Z')).rejects.toMatchObject({ errorCode: 'QUERY_TIMEOUT' });
    await expect(conn.query('SELECT Id FROM Opportunity WHERE Cosell_Share__c = true')).rejects.toMatchObject({ errorCode: 'QUERY_TIMEOUT' });
    // With a selective indexed filter beside it, the checkbox is checked on the rows the index reads.
    const shared = await conn.query('SELECT Id FROM Opportunity WHERE Cosell_Share__c = true AND SystemModstamp >= 2026-02-01T00:00:00Z', { headers: { 'Sforce-Query-Options': 'batchSize=2000' } });
    expect(shared.records).toHaveLength(450);
  });

  it('an OR stays selective only when every branch is: an unindexed branch scans the table', async () => {
    const both = await conn.query("SELECT Id FROM Opportunity WHERE SystemModstamp > 2026-02-01T00:00:00Z OR Name = 'old 7'", { headers: { 'Sforce-Query-Options': 'batchSize=2000' } });
    expect(both.totalSize).toBe(451);
    expect((await control(sandbox, 'GET', '/query-cost')).last).toMatchObject({ leadingOperationType: 'Index', rowsScanned: 451 });
    await expect(conn.query('SELECT Id FROM Opportunity WHERE SystemModstamp > 2026-02-01T00:00:00Z OR Amount > 5')).rejects.toMatchObject({ errorCode: 'QUERY_TIMEOUT' });
    // A standard index past 30% of the rows is not selective: SystemModstamp > 2020 matches them all.
    await expect(conn.query("SELECT Id FROM Opportunity WHERE SystemModstamp > 2020-01-01T00:00:00Z OR Name = 'old 7'")).rejects.toMatchObject({ errorCode: 'QUERY_TIMEOUT' });
  });

  it('is free by default, set by a start option or the control, and refuses values out of range', async () => {
    const other = await startSalesforceSandbox();
    try {
      expect(await (await fetch(`${other.instanceUrl}/_sandbox/query-cost`)).json()).toMatchObject({ msPerThousandRows: 0, timeoutMs: 120_000, realTimeShare: 0, queries: 0 });
    } finally {
      await other.stop();
    }
    const refused = await fetch(`${sandbox.instanceUrl}/_sandbox/query-cost`, { method: 'POST', body: JSON.stringify({ timeoutMs: -1 }) });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('timeoutMs must be a number from 0');
    await expect(startSalesforceSandbox({ queryCost: { msPerThousandRows: 'fast' as never } })).rejects.toThrow(/msPerThousandRows must be a number/);
    const priced = await startSalesforceSandbox({ queryCost: { msPerThousandRows: 5, timeoutMs: 10 } });
    try {
      expect(await (await fetch(`${priced.instanceUrl}/_sandbox/query-cost`)).json()).toMatchObject({ msPerThousandRows: 5, timeoutMs: 10 });
    } finally {
      await priced.stop();
    }
  });
});

describe('Salesforce sandbox: URI and header size', () => {
  it('a URI past 16,384 bytes answers 414 with a page; URI and headers together past it 431', async () => {
    const values = Array.from({ length: 700 }, (_, i) => `'value-${String(i).padStart(4, '0')}@example.com'`).join(', ');
    const soql = `SELECT Id FROM Opportunity WHERE Name IN (${values})`;
    expect(new URL(`http://x/?q=${encodeURIComponent(soql)}`).search.length).toBeGreaterThan(16_384);
    const tooLong = await rawQuery(soql);
    expect(tooLong.status).toBe(414);
    expect(tooLong.headers.get('content-type')).toBe('text/html');
    expect(await tooLong.text()).toContain('URI Too Long');
    await expect(conn.query(soql)).rejects.toMatchObject({ errorCode: 'ERROR_HTTP_414' });

    // About 11,000 bytes of URI fit; with headers that fill the rest of the 16,384 they do not.
    const fits = `SELECT Id FROM Opportunity WHERE Name IN (${values.slice(0, 9_000).replace(/, '[^']*$/, '')})`;
    expect((await rawQuery(fits)).status).toBe(200);
    const crowded = await rawQuery(fits, { 'x-padding': 'p'.repeat(16_384 - encodeURIComponent(fits).length) });
    expect(crowded.status).toBe(431);
    expect(await crowded.text()).toContain('Request Header Fields Too Large');
    expect(await callCounts(sandbox)).toMatchObject({ 'uri-too-long': 3 });
  });
});
