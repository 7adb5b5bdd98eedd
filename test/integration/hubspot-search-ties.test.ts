// Issue #22 item 2, follow-up: HubSpot's search takes one sorting rule and promises no order among
// records tied in it. A read of changed records sorts by hs_lastmodifieddate, so records written in the
// same millisecond (a batch, an import, a workflow) come in an order of HubSpot's choosing: the sandbox
// gives them a stable scramble, never id order. Whether the read goes on in one generator or, as the sync
// activities do, one page per call resumed from the last record's (modified time, id), every record of
// the window is read, and every page but the last is full (the activities take a short page for the end).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let now: Date;
let hubspot: HubSpotSandbox;

beforeEach(async () => {
  now = new Date('2026-05-04T09:00:00.000Z');
  hubspot = await startHubSpotSandbox({ now: () => now, tenSecondlyLimit: 1_000_000, dailyLimit: 10_000_000, searchPerSecond: 1_000_000 });
});
afterEach(() => hubspot.stop());

const connect = () =>
  createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: hubspot.accessToken }, {}, { wait: async () => {} });

/** Deals created in batches of 100, `counts[i]` of them modified at second i of the morning. */
async function seed(counts: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [second, count] of counts.entries()) {
    now = new Date(Date.UTC(2026, 4, 4, 9, 0, second, 250));
    for (let made = 0; made < count; made += 100) {
      const response = await fetch(`${hubspot.baseUrl}/crm/v3/objects/deals/batch/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hubspot.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: Array.from({ length: Math.min(100, count - made) }, (_, i) => ({ properties: { dealname: `s${second} d${made + i}` } })) }),
      });
      expect(response.status).toBe(201);
      ids.push(...((await response.json()) as { results: { id: string }[] }).results.map((r) => r.id));
    }
  }
  now = new Date('2026-05-04T10:00:00.000Z');
  return ids;
}

const since = new Date('2026-05-04T08:00:00.000Z');
const until = new Date('2026-05-04T10:00:00.000Z');
const idOf = (record: Record<string, unknown>) => String(record.hs_object_id);

/** The whole window in one generator: how often each id was read, and the pages' sizes. */
async function readAll(): Promise<{ reads: Map<string, number>; sizes: number[] }> {
  const reads = new Map<string, number>();
  const sizes: number[] = [];
  for await (const page of connect().changedSince('deals', { since, until, fields: ['dealname'], pageSize: 200 })) {
    sizes.push(page.length);
    for (const record of page) reads.set(idOf(record), (reads.get(idOf(record)) ?? 0) + 1);
  }
  return { reads, sizes };
}

/** As activities/crm-to-commerce.ts reads: one page a call, resumed from the last record's (time, id), done at a short page. */
async function readPageByPage(): Promise<{ reads: Map<string, number>; sizes: number[] }> {
  const reads = new Map<string, number>();
  const sizes: number[] = [];
  let cursor: { since: Date; afterId?: string } = { since };
  for (let call = 0; call < 100; call += 1) {
    const pages = connect().changedSince('deals', { ...cursor, until, fields: ['dealname'], pageSize: 200 })[Symbol.asyncIterator]();
    const first = await pages.next();
    await pages.return?.(undefined);
    const page = first.done ? [] : first.value;
    sizes.push(page.length);
    for (const record of page) reads.set(idOf(record), (reads.get(idOf(record)) ?? 0) + 1);
    const last = page.at(-1);
    if (last) cursor = { since: new Date(String(last.hs_lastmodifieddate)), afterId: idOf(last) };
    if (page.length < 200) break;
  }
  return { reads, sizes };
}

const searches = async (): Promise<number> => (await control(hubspot, 'GET', '/calls'))['deals.search'] ?? 0;

describe('HubSpot reads of changed records when many share one modified time', () => {
  it('the sandbox answers records tied in the sort in an order that is not id order, the same at every request', async () => {
    const ids = await seed([300]);
    const body = JSON.stringify({ filterGroups: [], sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }], properties: ['hs_object_id'], limit: 200 });
    const ask = async () => {
      const response = await fetch(`${hubspot.baseUrl}/crm/v3/objects/deals/search`, { method: 'POST', headers: { authorization: `Bearer ${hubspot.accessToken}`, 'content-type': 'application/json' }, body });
      return ((await response.json()) as { results: { id: string }[] }).results.map((r) => r.id);
    };
    const first = await ask();
    expect(first).toHaveLength(200);
    expect(first).not.toEqual(ids.slice(0, 200));
    expect(await ask()).toEqual(first);
  });

  it('450 deals in one millisecond, then 30 later, read in one go: each of the 480 exactly once', async () => {
    const ids = await seed([450, 30]);
    await control(hubspot, 'DELETE', '/calls');
    const { reads, sizes } = await readAll();
    expect(ids.filter((id) => !reads.has(id))).toEqual([]);
    expect(reads.size).toBe(480);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(480);
    // The first search finds 200 of one time: that time is read by id (3 searches), then what follows (1).
    expect(await searches()).toBe(5);
  });

  it('a page boundary inside a group of equal times (150, then 150), read a page a call: every deal read, each page but the last full', async () => {
    const ids = await seed([150, 150, 20]);
    await control(hubspot, 'DELETE', '/calls');
    const { reads, sizes } = await readPageByPage();
    expect(ids.filter((id) => !reads.has(id))).toEqual([]);
    expect(reads.size).toBe(320);
    expect(sizes.slice(0, -1).every((size) => size === 200)).toBe(true);
    expect(sizes.at(-1)!).toBeLessThan(200);
    // One search a page: the 50 of the second time on the first page are read again on the second.
    expect(await searches()).toBe(sizes.length);
  });

  it('450 deals in one millisecond read a page a call: every deal read, each page but the last full', async () => {
    const ids = await seed([450, 30]);
    await control(hubspot, 'DELETE', '/calls');
    const { reads, sizes } = await readPageByPage();
    expect(ids.filter((id) => !reads.has(id))).toEqual([]);
    expect(reads.size).toBe(480);
    expect(sizes).toEqual([200, 200, 80]);
    // A call whose first search finds a whole page of one time spends a second reading that time by id.
    expect(await searches()).toBe(5);
  });

  it('distinct modified times, read a page a call: one search a page, at most one deal a page read again', async () => {
    const ids = await seed(Array.from({ length: 500 }, () => 1));
    await control(hubspot, 'DELETE', '/calls');
    const { reads, sizes } = await readPageByPage();
    expect(ids.filter((id) => !reads.has(id))).toEqual([]);
    expect(sizes.slice(0, -1).every((size) => size === 200)).toBe(true);
    // No search more than pages: the last record of a full page may be read again at the next page's head.
    expect(await searches()).toBe(sizes.length);
    expect(sizes.length).toBeLessThanOrEqual(3);
    expect([...reads.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(sizes.length - 1);
  });
});
