// Reading a window of changed Opportunities the way the co-sell and stage activities do: one page per
// activity, each resuming from the cursor the last one returned. With 10,450 Opportunities in the
// sandbox and queries priced by the rows they scan: the window is queried once and followed by its
// query locator (not a fresh sorted query per page), a lost locator falls back to the (time, id)
// position without losing or repeating a record, a flow's narrowing becomes a SOQL filter, and a new
// connection's window from 1970 times out where one from the co-sell horizon does not.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readWindowPage, type WindowPageInput } from '../../activities/crm-window.ts';
import type { WireCursor } from '../../activities/sync.ts';
import type { CrmRecord } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let clockMs = Date.parse('2025-01-10T09:00:00Z');
const OLD = 10_000;
const RECENT_UNSHARED = 300;
const RECENT_SHARED = 150;
const TOTAL = OLD + RECENT_UNSHARED + RECENT_SHARED;

type Cursor = WireCursor;
type ReadOptions = Partial<Pick<WindowPageInput, 'narrow'>>;

const connector = () =>
  createSalesforceConnector({ loginUrl: sandbox.loginUrl, lookbackSeconds: 0, retries: 0 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

/** One activity's read, by the activities' own page logic (activities/crm-window.ts). */
async function readPage(sf: ReturnType<typeof connector>, cursor: Cursor, options: ReadOptions = {}) {
  const { page, nextCursor, done } = await readWindowPage(sf, 'Opportunity', { cursor, until: '2026-03-02T00:00:00.000Z', fields: ['Name', 'Cosell_Share__c'], pageSize: 200, ...options });
  return { page, next: nextCursor, done };
}

/** Every page of the window, one "activity" after another. */
async function readWindow(start: Cursor, options: ReadOptions = {}, between?: (pageNumber: number) => Promise<void>) {
  const sf = connector();
  const records: CrmRecord[] = [];
  let cursor = start;
  for (let pageNumber = 1; ; pageNumber += 1) {
    const { page, next, done } = await readPage(sf, cursor, options);
    records.push(...page);
    cursor = next;
    if (done) return records;
    await between?.(pageNumber);
  }
}

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ now: () => new Date(clockMs) });
  const { conn } = await clientCredentialsConnection(sandbox);
  const create = async (count: number, tag: string, share: boolean) => {
    const records = Array.from({ length: count }, (_, i) => ({ Name: `${tag} ${i}`, StageName: 'Prospecting', CloseDate: '2027-03-31', Cosell_Share__c: share }));
    for (let i = 0; i < records.length; i += 200) expect((await conn.sobject('Opportunity').create(records.slice(i, i + 200), { allOrNone: true })).every((r) => r.success)).toBe(true);
  };
  await create(OLD, 'old', false); // last changed in January 2025
  clockMs = Date.parse('2026-03-01T09:00:00Z');
  await create(RECENT_UNSHARED, 'recent', false);
  clockMs += 1000;
  await create(RECENT_SHARED, 'shared', true);
}, 120_000);
afterAll(() => sandbox?.stop());
beforeEach(async () => {
  // 1 ms a 1,000 rows: no query times out here, but the sandbox counts every row each one scans.
  await control(sandbox, 'POST', '/query-cost', { msPerThousandRows: 1, timeoutMs: 120_000 });
  await control(sandbox, 'POST', '/calls/reset');
});

describe('Salesforce window reads at scale', () => {
  it('reads 10,450 Opportunities 200 an activity with one query, then the query locator (52 queryMore calls)', async () => {
    const records = await readWindow({ time: '2025-01-01T00:00:00.000Z' });
    expect(records).toHaveLength(TOTAL);
    expect(new Set(records.map((record) => record.Id)).size).toBe(TOTAL);
    expect(await callCounts(sandbox)).toMatchObject({ query: 1, 'query-more': 52 });
    // The table was scanned once, not once a page.
    expect(await control(sandbox, 'GET', '/query-cost')).toMatchObject({ queries: 1, rowsScanned: TOTAL, timeouts: 0 });
  }, 120_000);

  it('a locator Salesforce no longer holds is read again from the (time, id) position: nothing lost, nothing twice', async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    const records = await readWindow({ time: '2026-02-01T00:00:00.000Z' }, {}, async (pageNumber) => {
      // After the first page, ten other queries of the same user release the oldest cursor: ours.
      if (pageNumber === 1) for (let i = 0; i < 10; i += 1) await conn.query('SELECT Id FROM Opportunity', { headers: { 'Sforce-Query-Options': 'batchSize=200' } });
    });
    expect(records).toHaveLength(RECENT_UNSHARED + RECENT_SHARED);
    expect(new Set(records.map((record) => record.Id)).size).toBe(RECENT_UNSHARED + RECENT_SHARED);
    // The window's own query, the ten others, and the window queried again once from its position.
    expect(await callCounts(sandbox)).toMatchObject({ query: 12, 'query-more': 2 });
  });

  it('an activity retried after its page was read presents a spent locator: read again from its position, the same records', async () => {
    const sf = connector();
    const first = await readPage(sf, { time: '2026-02-01T00:00:00.000Z' });
    const second = await readPage(sf, first.next);
    await control(sandbox, 'POST', '/calls/reset');
    // The same cursor again, as a retried activity would present it: Salesforce takes a locator once.
    const retried = await readPage(sf, first.next);
    expect(retried.page.map((record) => record.Id)).toEqual(second.page.map((record) => record.Id));
    expect(retried.page).toHaveLength(200);
    expect((await callCounts(sandbox)).query).toBe(1);
  });

  it("narrows by a flow's declaration: only the 150 shared Opportunities are read", async () => {
    const records = await readWindow({ time: '2026-02-01T00:00:00.000Z' }, { narrow: { field: 'Cosell_Share__c', equals: true } });
    expect(records.map((record) => record.Name).sort()).toEqual(Array.from({ length: RECENT_SHARED }, (_, i) => `shared ${i}`).sort());
    expect(records.every((record) => record.Cosell_Share__c === true)).toBe(true);
  });

  it('narrowing values are escaped, typed SOQL: a hostile value is a value, never a clause', async () => {
    const records = await readWindow({ time: '2026-02-01T00:00:00.000Z' }, { narrow: { field: 'Name', oneOf: ["shared 1", "x' OR Name != '", 'shared 2\\'] } });
    expect(records.map((record) => record.Name)).toEqual(['shared 1']);
    await expect(readWindow({ time: '2026-02-01T00:00:00.000Z' }, { narrow: { field: 'Name OR Id', equals: 'x' } })).rejects.toThrow(/Not a Salesforce field/);
  });

  it("a new connection's window from 1970 scans every Opportunity and times out; one from the horizon is read through the index", async () => {
    // 20 s a 1,000 rows: a scan of all 10,450 would take 209 s, past Salesforce's 120 s.
    await control(sandbox, 'POST', '/query-cost', { msPerThousandRows: 20_000, timeoutMs: 120_000 });
    // The activity's failure carries Salesforce's code as its type (activities/failures.ts).
    await expect(readWindow({ time: new Date(0).toISOString() })).rejects.toMatchObject({ type: 'QUERY_TIMEOUT' });
    const recent = await readWindow({ time: '2025-12-01T09:00:00.000Z' });
    expect(recent).toHaveLength(RECENT_UNSHARED + RECENT_SHARED);
    expect((await control(sandbox, 'GET', '/query-cost')).last).toMatchObject({ leadingOperationType: 'Index', rowsScanned: RECENT_UNSHARED + RECENT_SHARED });
  });
});
