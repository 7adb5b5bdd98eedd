// HubSpot sandbox, search through @hubspot/api-client: each filter operator with typed values (numbers
// as numbers, dates as epoch milliseconds or ISO), OR of AND groups, sorts, chosen properties,
// `after` paging, the limit of 200, the 10,000-result ceiling, and hostile strings kept as values.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
let clock = Date.parse('2026-04-01T00:00:00.000Z');
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
type F = { propertyName: string; operator: string; value?: string; values?: string[]; highValue?: string };

/** Names of the deals a search finds (one page of up to 200), in the order given. */
async function names(filters: F[][], sorts: string[] = [], limit = 200): Promise<string[]> {
  const page = await client.crm.deals.searchApi.doSearch({ filterGroups: filters.map((f) => ({ filters: f as any })), sorts, properties: ['dealname'], limit, after: undefined as any });
  return page.results.map((r) => r.properties.dealname!);
}

beforeAll(async () => {
  // A generous per-second budget: these tests are about results, the limit is tested elsewhere.
  sandbox = await startHubSpotSandbox({ now: () => new Date(clock), searchPerSecond: 1000, tenSecondlyLimit: 100_000 });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  const deals: Record<string, string>[] = [
    { dealname: 'Alpha rocket launch', amount: '9', closedate: '2026-01-15T00:00:00Z' },
    { dealname: 'Beta', amount: '10', closedate: '2026-02-15T00:00:00Z' },
    { dealname: 'gamma rocket', amount: '100', closedate: '2026-03-15T00:00:00Z' },
    { dealname: 'Delta', amount: '', closedate: '' },
    { dealname: "O'Brien \" OR 1=1 --", amount: '-5' },
  ];
  for (const properties of deals) {
    clock += 1_000;
    await client.crm.deals.basicApi.create({ properties, associations: [] });
  }
});
afterAll(() => sandbox.stop());

describe('HubSpot sandbox: search filters', () => {
  it('compares numbers as numbers, not as text', async () => {
    expect(await names([[{ propertyName: 'amount', operator: 'GT', value: '9' }]])).toEqual(['Beta', 'gamma rocket']);
    expect(await names([[{ propertyName: 'amount', operator: 'LTE', value: '10' }]])).toEqual(['Alpha rocket launch', 'Beta', "O'Brien \" OR 1=1 --"]);
    expect(await names([[{ propertyName: 'amount', operator: 'LT', value: '0' }]])).toEqual(["O'Brien \" OR 1=1 --"]);
    expect(await names([[{ propertyName: 'amount', operator: 'GTE', value: '100' }]])).toEqual(['gamma rocket']);
    expect(await names([[{ propertyName: 'amount', operator: 'BETWEEN', value: '9', highValue: '10' }]])).toEqual(['Alpha rocket launch', 'Beta']);
  });

  it('compares dates given as epoch milliseconds or ISO 8601', async () => {
    const feb1 = String(Date.UTC(2026, 1, 1));
    expect(await names([[{ propertyName: 'closedate', operator: 'GTE', value: feb1 }]])).toEqual(['Beta', 'gamma rocket']);
    expect(await names([[{ propertyName: 'closedate', operator: 'LT', value: '2026-02-01T00:00:00.000Z' }]])).toEqual(['Alpha rocket launch']);
    expect(await names([[{ propertyName: 'closedate', operator: 'EQ', value: String(Date.UTC(2026, 2, 15)) }]])).toEqual(['gamma rocket']);
  });

  it('EQ and NEQ ignore case on text; IN and NOT_IN take lists', async () => {
    expect(await names([[{ propertyName: 'dealname', operator: 'EQ', value: 'beta' }]])).toEqual(['Beta']);
    expect((await names([[{ propertyName: 'dealname', operator: 'NEQ', value: 'Beta' }]])).sort()).toEqual(['Alpha rocket launch', 'Delta', "O'Brien \" OR 1=1 --", 'gamma rocket'].sort());
    expect(await names([[{ propertyName: 'amount', operator: 'IN', values: ['9', '100'] }]])).toEqual(['Alpha rocket launch', 'gamma rocket']);
    expect(await names([[{ propertyName: 'dealname', operator: 'NOT_IN', values: ['alpha rocket launch', 'beta', 'gamma rocket', 'delta'] }]])).toEqual(["O'Brien \" OR 1=1 --"]);
  });

  it('HAS_PROPERTY and NOT_HAS_PROPERTY see empty values as missing', async () => {
    expect(await names([[{ propertyName: 'closedate', operator: 'NOT_HAS_PROPERTY' }]])).toEqual(['Delta', "O'Brien \" OR 1=1 --"]);
    expect(await names([[{ propertyName: 'amount', operator: 'HAS_PROPERTY' }]])).toHaveLength(4);
  });

  it('CONTAINS_TOKEN matches whole words (with * wildcards), NOT_CONTAINS_TOKEN the rest', async () => {
    expect(await names([[{ propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'rocket' }]])).toEqual(['Alpha rocket launch', 'gamma rocket']);
    expect(await names([[{ propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'rock' }]])).toEqual([]);
    expect(await names([[{ propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'laun*' }]])).toEqual(['Alpha rocket launch']);
    expect(await names([[{ propertyName: 'dealname', operator: 'NOT_CONTAINS_TOKEN', value: 'rocket' }]])).toEqual(['Beta', 'Delta', "O'Brien \" OR 1=1 --"]);
  });

  it('ORs filter groups and ANDs the filters within one', async () => {
    const groups: F[][] = [
      [{ propertyName: 'amount', operator: 'GT', value: '5' }, { propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'rocket' }],
      [{ propertyName: 'dealname', operator: 'EQ', value: 'Delta' }],
    ];
    expect(await names(groups)).toEqual(['Alpha rocket launch', 'gamma rocket', 'Delta']);
  });

  it('keeps a hostile string a value: it matches only itself', async () => {
    expect(await names([[{ propertyName: 'dealname', operator: 'EQ', value: "O'Brien \" OR 1=1 --" }]])).toEqual(["O'Brien \" OR 1=1 --"]);
    expect(await names([[{ propertyName: 'dealname', operator: 'EQ', value: "' OR '1'='1" }]])).toEqual([]);
  });

  it('refuses an unknown operator or property with a VALIDATION_ERROR naming it', async () => {
    const op = await errorOf(names([[{ propertyName: 'amount', operator: 'LIKE', value: '1' }]]));
    expect(op.code).toBe(400);
    expect(op.body.message).toContain('LIKE');
    const prop = await errorOf(names([[{ propertyName: 'nope', operator: 'EQ', value: '1' }]]));
    expect(prop.body).toMatchObject({ category: 'VALIDATION_ERROR' });
    expect(prop.body.message).toContain('nope');
  });
});

describe('HubSpot sandbox: search sorts, properties and paging', () => {
  it('sorts by a typed property either way (strings with a leading - descend)', async () => {
    const withAmount: F[][] = [[{ propertyName: 'amount', operator: 'HAS_PROPERTY' }]];
    expect(await names(withAmount, ['amount'])).toEqual(["O'Brien \" OR 1=1 --", 'Alpha rocket launch', 'Beta', 'gamma rocket']);
    expect(await names(withAmount, ['-amount'])).toEqual(['gamma rocket', 'Beta', 'Alpha rocket launch', "O'Brien \" OR 1=1 --"]);
    // Without a value (Delta has no amount) sorts last either way.
    expect((await names([], ['-amount'])).at(-1)).toBe('Delta');
    expect((await names([], ['amount'])).at(-1)).toBe('Delta');
    const page = await client.crm.deals.searchApi.doSearch({ filterGroups: [{ filters: withAmount[0] as any }], sorts: [{ propertyName: 'amount', direction: 'DESCENDING' } as any], properties: ['amount'], limit: 1, after: undefined as any });
    expect(page.results[0]!.properties).toMatchObject({ amount: '100' });
    expect(page.results[0]!.properties).not.toHaveProperty('dealname');
  });

  it('pages with after: total counts every match, the last page has no paging', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    let total = -1;
    do {
      const page = await client.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: ['hs_object_id'], properties: ['dealname'], limit: 2, after: after as any });
      total = page.total;
      seen.push(...page.results.map((r) => r.properties.dealname!));
      after = page.paging?.next?.after;
    } while (after);
    expect(total).toBe(5);
    expect(seen).toEqual(['Alpha rocket launch', 'Beta', 'gamma rocket', 'Delta', "O'Brien \" OR 1=1 --"]);
  });

  it('refuses a limit above 200', async () => {
    const error = await errorOf(client.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 201, after: undefined as any }));
    expect(error.code).toBe(400);
    expect(error.body.message).toContain('200');
  });
});

describe('HubSpot sandbox: after is an offset into a result set evaluated at each request (issue #22 item 2)', () => {
  it('a record edited between two page requests leaves the filtered set and the next page starts one record later', async () => {
    const shifting = await startHubSpotSandbox({ now: () => new Date(clock), searchPerSecond: 100_000, tenSecondlyLimit: 100_000 });
    try {
      const c = new Client({ accessToken: shifting.accessToken, basePath: shifting.baseUrl });
      const made = await c.crm.deals.batchApi.create({ inputs: ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'].map((dealname) => ({ properties: { dealname }, associations: [] })) });
      const window = [[{ propertyName: 'dealstage', operator: 'NOT_HAS_PROPERTY' as any }]];
      const page = async (after?: string) =>
        c.crm.deals.searchApi.doSearch({ filterGroups: window.map((filters) => ({ filters })), sorts: ['hs_object_id'], properties: ['dealname'], limit: 3, after: after as any });
      const first = await page();
      expect(first.results.map((r) => r.properties.dealname)).toEqual(['d0', 'd1', 'd2']);
      expect(first.paging?.next?.after).toBe('3');
      // A salesperson moves d1 to a stage: it leaves the filtered set, which is evaluated again.
      const d1 = made.results.find((r) => r.properties.dealname === 'd1')!.id;
      await control(shifting, 'POST', '/deals/change', { ids: [d1], properties: { dealstage: 'closedwon' } });
      const second = await page(first.paging!.next!.after);
      expect(second.total).toBe(5);
      expect(second.results.map((r) => r.properties.dealname)).toEqual(['d4', 'd5']); // d3 is never seen
    } finally {
      await shifting.stop();
    }
  });

  it("refuses more than 5 filter groups, 6 filters in a group or 18 in all (the search guide's limits)", async () => {
    const filter = { propertyName: 'amount', operator: 'HAS_PROPERTY' };
    const groups = (count: number, each: number) => Array.from({ length: count }, () => Array.from({ length: each }, () => filter));
    expect(await names(groups(5, 3))).toHaveLength(4);
    expect(await names(groups(3, 6))).toHaveLength(4);
    for (const [count, each, words] of [[6, 1, 'filter groups'], [1, 7, 'in one group'], [4, 5, 'Too many filters']] as const) {
      const error = await errorOf(names(groups(count, each)));
      expect(error.code).toBe(400);
      expect(error.body.message).toContain(words);
    }
  });
});

describe('HubSpot sandbox: the 10,000-result ceiling', () => {
  it('pages up to the 10,000th result, then answers 400 VALIDATION_ERROR while total keeps the true count', async () => {
    for (let i = 0; i < 101; i += 1) {
      await client.crm.companies.batchApi.create({ inputs: Array.from({ length: 100 }, (_, j) => ({ properties: { name: `c-${i}-${j}` }, associations: [] })) });
    }
    const request = (after: string) => client.crm.companies.searchApi.doSearch({ filterGroups: [], sorts: [], properties: ['name'], limit: 200, after: after as any });
    const last = await request('9800');
    expect(last.total).toBe(10_100);
    expect(last.results).toHaveLength(200);
    expect(last.paging?.next?.after).toBe('10000');
    const beyond = await errorOf(request('10000'));
    expect(beyond.code).toBe(400);
    expect(beyond.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect(beyond.body.message).toContain('10000');
    expect(typeof beyond.body.correlationId).toBe('string');
  });
});

describe('HubSpot sandbox: an incremental read past the ceiling', () => {
  it('returns each of 25,000 deals sharing one modified time exactly once to one sort by hs_object_id, restarted after the last id before 10,000', async () => {
    const big = await startHubSpotSandbox({ now: () => new Date('2026-06-01T08:00:00.000Z'), searchPerSecond: 100_000, tenSecondlyLimit: 100_000 });
    try {
      const c = new Client({ accessToken: big.accessToken, basePath: big.baseUrl });
      for (let i = 0; i < 250; i += 1) {
        await c.crm.deals.batchApi.create({ inputs: Array.from({ length: 100 }, (_, j) => ({ properties: { dealname: `bulk ${i * 100 + j}` }, associations: [] })) });
      }
      const since = String(Date.parse('2026-06-01T00:00:00.000Z'));
      const seen = new Map<string, number>();
      let lastId = '0';
      let queries = 0;
      for (;;) {
        // One query from the last id read: search takes one sorting rule, and hs_object_id is a total order.
        const filterGroups = [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE' as any, value: since }, { propertyName: 'hs_object_id', operator: 'GT' as any, value: lastId }] }];
        const sorts = [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }] as any;
        queries += 1;
        let after: string | undefined;
        let read = 0;
        let last: string | undefined;
        do {
          const page = await c.crm.deals.searchApi.doSearch({ filterGroups, sorts, properties: ['hs_lastmodifieddate'], limit: 200, after: after as any });
          for (const r of page.results) {
            seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
            last = r.id;
          }
          read += page.results.length;
          after = page.paging?.next?.after;
        } while (after && read < 9_800);
        if (!last) break;
        lastId = last;
        if (!after) break;
      }
      expect(seen.size).toBe(25_000);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(queries).toBe(3);
    } finally {
      await big.stop();
    }
  });
});

describe('HubSpot sandbox: one sorting rule, ties in no promised order (issue #22 item 2)', () => {
  it('answers records tied in the sort in an order that is not id order, the same at every request', async () => {
    const tied = await startHubSpotSandbox({ now: () => new Date('2026-06-02T08:00:00.000Z'), searchPerSecond: 100_000, tenSecondlyLimit: 100_000 });
    try {
      const c = new Client({ accessToken: tied.accessToken, basePath: tied.baseUrl });
      const made = await c.crm.deals.batchApi.create({ inputs: Array.from({ length: 50 }, (_, i) => ({ properties: { dealname: `tied ${i}` }, associations: [] })) });
      const byId = made.results.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
      const ask = async (after?: string) =>
        c.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }] as any, properties: ['dealname'], limit: 20, after: after as any });
      const first = (await ask()).results.map((r) => r.id);
      expect(first).toHaveLength(20);
      expect(first).not.toEqual(byId.slice(0, 20));
      expect((await ask()).results.map((r) => r.id)).toEqual(first);
      // Stable, so offsets still page one order: three pages hold each of the 50 once.
      const all = [...first, ...(await ask('20')).results.map((r) => r.id), ...(await ask('40')).results.map((r) => r.id)];
      expect([...all].sort((a, b) => Number(a) - Number(b))).toEqual(byId);
      // Sorted by hs_object_id, a total order, they come in id order.
      const ordered = await c.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: ['hs_object_id'], properties: ['dealname'], limit: 50, after: undefined as any });
      expect(ordered.results.map((r) => r.id)).toEqual(byId);
    } finally {
      await tied.stop();
    }
  });

  it('refuses a second sorting rule with a VALIDATION_ERROR', async () => {
    const error = await errorOf(client.crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }, { propertyName: 'hs_object_id', direction: 'ASCENDING' }] as any, properties: [], limit: 10, after: undefined as any }));
    expect(error.code).toBe(400);
    expect(error.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect(error.body.message).toContain('one sorting rule');
  });
});

describe('HubSpot sandbox: search counts apart', () => {
  it('counts search calls under their own kind', async () => {
    await control(sandbox, 'DELETE', '/calls');
    await names([]);
    expect(await control(sandbox, 'GET', '/calls')).toEqual({ 'deals.search': 1, total: 1 });
  });
});
