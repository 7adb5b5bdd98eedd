// The `q` filter (A3), the `s` sort (A4) and the paging limits (§8, A5) of the commerce sandbox. The
// expected rows are computed independently from the record dump with plain JavaScript.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterSyntaxError, parseFilter } from '../../sandbox/commerce/filter-parser.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let entitlements: any[];

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
const sortedIds = (rows: { id: string }[]) => ids(rows).sort();

async function query(q: string, extra: Record<string, string | number> = {}) {
  return probe.api('/org/org-1/entitlement/query', { query: { q, page_size: 1000, ...extra } });
}
async function matching(q: string): Promise<string[]> {
  const response = await query(q);
  expect(response.status, response.text).toBe(200);
  return ids(response.json.data);
}
const expected = (predicate: (row: any) => boolean) => sortedIds(entitlements.filter(predicate));

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 11, entitlements: 300 });
  probe = probeSandbox(sandbox);
  entitlements = await probe.records('entitlements');
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: q filter over HTTP', () => {
  it('eq, ne and in on strings, and the default order is ascending id', async () => {
    const active = await matching('(eq status "ACTIVE")');
    expect(active).toEqual(expected((e) => e.status === 'ACTIVE'));
    expect(active.length).toBeGreaterThan(10);
    expect(await matching('(ne partner "cloudA")')).toEqual(expected((e) => e.partner !== 'cloudA'));
    expect(await matching('(in partner "cloudB" "cloudD")')).toEqual(expected((e) => e.partner === 'cloudB' || e.partner === 'cloudD'));
  });

  it('gt, ge, lt and le compare date-times as instants (with ties) and numbers numerically', async () => {
    // A lastUpdateTime that several rows share, written in another offset so string comparison would fail.
    const counts = new Map<string, number>();
    for (const e of entitlements) counts.set(e.lastUpdateTime, (counts.get(e.lastUpdateTime) ?? 0) + 1);
    const [tied] = [...counts].filter(([, count]) => count > 1).sort(([a], [b]) => a.localeCompare(b)).slice(-3)[0]!;
    const ms = Date.parse(tied);
    const shifted = new Date(ms + 2 * 3_600_000).toISOString().replace('.000Z', '+02:00');
    const at = (e: any) => Date.parse(e.lastUpdateTime);
    expect(await matching(`(gt lastUpdateTime "${shifted}")`)).toEqual(expected((e) => at(e) > ms));
    expect(await matching(`(ge lastUpdateTime "${shifted}")`)).toEqual(expected((e) => at(e) >= ms));
    expect(await matching(`(lt lastUpdateTime "${shifted}")`)).toEqual(expected((e) => at(e) < ms));
    expect(await matching(`(le lastUpdateTime "${shifted}")`)).toEqual(expected((e) => at(e) <= ms));
    expect((await matching(`(ge lastUpdateTime "${tied}")`)).length - (await matching(`(gt lastUpdateTime "${tied}")`)).length).toBeGreaterThan(1);
    expect(await matching('(gt info.commitAmount 100000)')).toEqual(expected((e) => e.info.commitAmount > 100000));
    expect(await matching('(le info.commitAmount 5000.5)')).toEqual(expected((e) => e.info.commitAmount <= 5000.5));
  });

  it('like is case-insensitive with % and _, exists tests presence, and not/and/or combine', async () => {
    expect(await matching('(like name "%BACKUP%")')).toEqual(expected((e) => e.name.toLowerCase().includes('backup')));
    expect(await matching('(like externalID "agmt-_________________________")')).toEqual(expected((e) => /^agmt-.{25}$/.test(e.externalID)));
    expect(await matching('(exists info.cloudAAgreement)')).toEqual(expected((e) => e.info.cloudAAgreement !== undefined));
    expect(await matching('(not (eq status "ACTIVE"))')).toEqual(expected((e) => e.status !== 'ACTIVE'));
    expect(await matching('(and (eq partner "cloudA") (or (eq status "CANCELLED") (eq status "EXPIRED")))')).toEqual(
      expected((e) => e.partner === 'cloudA' && (e.status === 'CANCELLED' || e.status === 'EXPIRED')),
    );
  });

  it('matches field names case-insensitively with underscores ignored, and treats a missing field as no match', async () => {
    expect(await matching('(eq PARTNER "cloudC")')).toEqual(await matching('(eq partner "cloudC")'));
    expect(await matching('(gt last_update_time "2025-12-25T00:00:00Z")')).toEqual(await matching('(gt lastUpdateTime "2025-12-25T00:00:00Z")'));
    const withAnnual = expected((e) => e.info.annualizedAmount !== undefined && e.info.annualizedAmount > 0);
    expect(await matching('(gt info.annualized_amount 0)')).toEqual(withAnnual);
    expect(await matching('(not (gt info.annualizedAmount 0))')).toEqual(expected((e) => !(e.info.annualizedAmount > 0)));
    expect(await matching('(eq endTime null)')).toEqual(expected((e) => e.endTime === null));
    expect(await matching('(eq info.autoRenew true)')).toEqual(expected((e) => e.info.autoRenew === true));
  });

  it('handles hostile strings: quotes, backslashes, parentheses and SQL-ish text inside a value', async () => {
    const hostile = `Robert"); DROP TABLE entitlements;-- \\ (or 1=1) ' OR ''='`;
    const target = entitlements[7]!;
    const patched = await probe.api(`/org/org-1/entitlement/${target.id}/metaInfo`, { method: 'PATCH', body: { customMetaInfo: { note: hostile } } });
    expect(patched.status).toBe(200);
    entitlements = await probe.records('entitlements'); // the patch moved its lastUpdateTime
    const quoted = `"${hostile.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    expect(await matching(`(eq metaInfo.customMetaInfo.note ${quoted})`)).toEqual([target.id]);
    expect(await matching('(like metaInfo.customMetaInfo.note "%drop table%")')).toEqual([target.id]);
    expect(await matching('(eq name "x\\") (or (exists id))")')).toEqual([]);
    expect(await matching('(eq name "SELECT * FROM Entitlement WHERE 1=1")')).toEqual([]);
  });

  it.each([
    ['SELECT Id FROM Entitlement WHERE Status = \'ACTIVE\'', 0],
    ["(eq status 'ACTIVE')", 11],
    ['(eq status "ACTIVE") OR (eq 1 1)', 21],
    ['(AND (eq status "ACTIVE"))', 1],
    ['(eq status "ACT\\IVE")', 15],
    ['(eq status "ACTIVE)', 11],
    ['(eq status "ACTIVE"', 19],
    ['(eq "status" "ACTIVE")', 4],
    ['(eq status ACTIVE)', 11],
    ['(eq status)', 10],
    ['(in status)', 10],
    ['(like name 5)', 11],
    ['(and)', 4],
    ['(not (eq a 1) (eq b 2))', 14],
    ['eq status "ACTIVE"', 0],
    [')', 0],
    ['(eq a.b..c 1)', 4],
    ['(gt x 12abc)', 8],
    ['(eq x 1; DROP)', 7],
  ])('rejects the malformed %j with a 400 naming position %i', async (q, position) => {
    const response = await query(q);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'q', position });
    expect(response.json.message).toContain(`at position ${position}`);
  });

  it('rejects nesting deeper than 64 levels instead of overflowing the stack', async () => {
    const deep = '(not '.repeat(5_000) + '(exists id)' + ')'.repeat(5_000);
    const response = await probe.api('/org/org-1/entitlement/query', { query: { q: deep.slice(0, 6_000) } });
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(/deeper than 64/);
  });

  it('treats an empty q as no filter', async () => {
    expect((await query('  ')).json.total_count).toBe(300);
  });
});

describe('commerce sandbox: q parser', () => {
  it('parses every operator into a tree with typed values', () => {
    expect(parseFilter('(and (eq a "x") (ne b 1.5) (gt c -2e3) (ge d true) (lt e false) (le f null) (in g "p" 3) (like h "%q_") (exists i.j) (or (not (eq k "\\"\\\\"))))')).toEqual({
      op: 'and',
      args: [
        { op: 'eq', field: { text: 'a', segments: ['a'] }, value: 'x' },
        { op: 'ne', field: { text: 'b', segments: ['b'] }, value: 1.5 },
        { op: 'gt', field: { text: 'c', segments: ['c'] }, value: -2000 },
        { op: 'ge', field: { text: 'd', segments: ['d'] }, value: true },
        { op: 'lt', field: { text: 'e', segments: ['e'] }, value: false },
        { op: 'le', field: { text: 'f', segments: ['f'] }, value: null },
        { op: 'in', field: { text: 'g', segments: ['g'] }, values: ['p', 3] },
        { op: 'like', field: { text: 'h', segments: ['h'] }, pattern: '%q_' },
        { op: 'exists', field: { text: 'i.j', segments: ['i', 'j'] } },
        { op: 'or', args: [{ op: 'not', arg: { op: 'eq', field: { text: 'k', segments: ['k'] }, value: '"\\' } }] },
      ],
    });
  });

  it('keeps newlines and parentheses inside strings literally', () => {
    expect(parseFilter('(eq name "a\n(b)")')).toMatchObject({ value: 'a\n(b)' });
  });

  it('reports the position of an unterminated string at its opening quote', () => {
    expect(() => parseFilter('(eq name "abc\\")')).toThrowError(FilterSyntaxError);
    try {
      parseFilter('(eq name "abc\\")');
    } catch (error) {
      expect((error as FilterSyntaxError).position).toBe(9);
    }
  });
});

describe('commerce sandbox: s sort', () => {
  it('sorts descending with a leading "-" and breaks ties by ascending id', async () => {
    const response = await probe.api('/org/org-1/entitlement/query', { query: { page_size: 1000, s: '-lastUpdateTime' } });
    const rows = response.json.data as any[];
    const reference = entitlements.slice().sort((a, b) => Date.parse(b.lastUpdateTime) - Date.parse(a.lastUpdateTime) || (a.id < b.id ? -1 : 1));
    expect(ids(rows)).toEqual(ids(reference));
  });

  it('accepts field:asc,field2:desc with snake_case names and compares numbers numerically', async () => {
    const response = await probe.api('/org/org-1/entitlement/query', { query: { page_size: 1000, s: 'partner:asc,info.commit_amount:desc' } });
    const reference = entitlements.slice().sort((a, b) => (a.partner < b.partner ? -1 : a.partner > b.partner ? 1 : 0) || b.info.commitAmount - a.info.commitAmount || (a.id < b.id ? -1 : 1));
    expect(ids(response.json.data)).toEqual(ids(reference));
  });

  it('puts rows missing the field last in both directions', async () => {
    for (const s of ['info.annualizedAmount:asc', 'info.annualizedAmount:desc']) {
      const rows = (await probe.api('/org/org-1/entitlement/query', { query: { page_size: 1000, s } })).json.data as any[];
      const firstMissing = rows.findIndex((row) => row.info.annualizedAmount === undefined);
      expect(firstMissing).toBeGreaterThan(0);
      expect(rows.slice(firstMissing).every((row) => row.info.annualizedAmount === undefined)).toBe(true);
    }
  });

  it.each(['name:up', '-name:asc', 'name,', 'na me', '-'])('rejects the sort %j with a 400', async (s) => {
    const response = await probe.api('/org/org-1/entitlement/query', { query: { s } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 's' });
  });
});

describe('commerce sandbox: paging limits', () => {
  it('defaults to page 1 of 20 and pages through every row exactly once', async () => {
    const first = await probe.api('/org/org-1/entitlement/query');
    expect(first.json).toMatchObject({ page_number: 1, page_size: 20, total_count: 300 });
    expect(first.json.data).toHaveLength(20);
    expect(first.json.total_count_capped).toBeUndefined();
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const response = await probe.api('/org/org-1/entitlement/query', { query: { page_size: 70, page_number: page } });
      seen.push(...ids(response.json.data));
      if (response.json.data.length < 70) break;
    }
    expect(seen).toEqual(sortedIds(entitlements));
  });

  it.each([
    ['page_size', '1001'],
    ['page_size', '0'],
    ['page_size', 'ten'],
    ['page_size', '-5'],
    ['page_number', '0'],
    ['page_number', '1.5'],
  ])('rejects %s=%s with a 400 naming the parameter', async (name, value) => {
    const response = await probe.api('/org/org-1/entitlement/query', { query: { [name]: value } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: name });
  });

  it('accepts page_size 1000 and a limit of 1000 on lists, and rejects limit 1001', async () => {
    expect((await probe.api('/org/org-1/entitlement/query', { query: { page_size: 1000 } })).json.data).toHaveLength(300);
    expect((await probe.api('/org/org-1/offer', { query: { limit: 1000 } })).json).toHaveLength(300);
    expect((await probe.api('/org/org-1/offer')).json).toHaveLength(300);
    expect((await probe.api('/org/org-1/offer', { query: { limit: 1001 } })).status).toBe(400);
    const page = await probe.api('/org/org-1/offer', { query: { limit: 7, offset: 295 } });
    expect(page.json).toHaveLength(5);
  });

  it('caps total_count and says so with total_count_capped', async () => {
    const capped = await startCommerceSandbox({ seed: 11, entitlements: 300, totalCountCap: 50 });
    try {
      const small = probeSandbox(capped);
      const all = await small.api('/org/org-1/entitlement/query', { query: { page_size: 5 } });
      expect(all.json).toMatchObject({ total_count: 50, total_count_capped: true });
      const few = await small.api('/org/org-1/entitlement/query', { query: { q: '(eq partner "cloudF")', page_size: 5 } });
      expect(few.json.total_count).toBe(entitlements.filter((e) => e.partner === 'cloudF').length);
      expect(few.json.total_count).toBeLessThan(50);
      expect('total_count_capped' in few.json).toBe(false);
      const beyond = await small.api('/org/org-1/entitlement/query', { query: { page_size: 100, page_number: 3 } });
      expect(beyond.json.data).toHaveLength(100);
    } finally {
      await capped.stop();
    }
  });
});
