// Poison records (POST /_sandbox/records/{kind}): rows stored verbatim however wrong, served by the
// list, query and get-by-id endpoints in the order and with the filters of A3/A4 (README "Poison
// records"), kept by the journal, and left alone by the change driver. Expected orders are worked out
// here from the documented rules, not read back from the sandbox.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-04-01T00:00:00.000Z');
const started: CommerceSandbox[] = [];
let dir: string;

async function start(options: CommerceSandboxOptions = {}): Promise<SandboxProbe> {
  const sandbox = await startCommerceSandbox({ seed: 14, entitlements: 60, now: clock.now, ...options });
  started.push(sandbox);
  return probeSandbox(sandbox);
}

async function inject(probe: SandboxProbe, kind: string, records: unknown[]) {
  const response = await probe.control('POST', `/records/${kind}`, { records });
  expect(response.status, response.text).toBe(200);
  return response.json;
}

async function query(probe: SandboxProbe, resource: string, q: string | undefined, extra: Record<string, string | number> = {}) {
  const response = await probe.api(`/org/org-1/${resource}/query`, { query: { ...(q === undefined ? {} : { q }), s: 'lastUpdateTime:asc,id:asc', page_size: 1000, ...extra } });
  expect(response.status, response.text).toBe(200);
  return response.json;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'commerce-poison-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Generated data lies before 2026-01-01; these times are after all of it.
const MARCH = '2026-03-01T00:00:00.000Z';
const oversized = 'x'.repeat(300_000);
const POISON_BUYERS = [
  { id: 'buyer-poison-1', organizationID: 'org-1', lastUpdateTime: 'not-a-date', name: 12345, status: 'FROZEN', partner: 'cloudZ' },
  { id: 'buyer-poison-2', organizationID: 'org-1', lastUpdateTime: MARCH, name: oversized, status: 'ACTIVE', partner: 'cloudA' },
  { name: 'Buyer without an id', lastUpdateTime: MARCH, status: 'ACTIVE' },
  { id: 'buyer-poison-3', name: 'No lastUpdateTime' },
  { id: 'buyer-poison-4', name: 'Epoch milliseconds', lastUpdateTime: 1_772_323_200_000 },
];

describe('commerce sandbox: poison records', () => {
  it('serves injected rows verbatim: get by id, the list in id order, queries by the A3/A4 rules', async () => {
    const probe = await start();
    const generated = await probe.records('buyers');
    expect(await inject(probe, 'buyers', POISON_BUYERS)).toEqual({ kind: 'buyers', added: 5, replaced: 0, total: generated.length + 5 });

    for (const row of POISON_BUYERS.filter((b) => 'id' in b)) {
      const response = await probe.api(`/org/org-1/buyer/${row.id}`);
      expect(response.status).toBe(200);
      expect(response.json).toEqual(row);
    }

    // The list: string ids ascending ('buyer-p...' after 'buyer-0...'), then the row without an id.
    const list = (await probe.api('/org/org-1/buyer', { query: { limit: 1000 } })).json as any[];
    const expectedIds = [...generated.map((b) => b.id), 'buyer-poison-1', 'buyer-poison-2', 'buyer-poison-3', 'buyer-poison-4'].sort();
    expect(list.map((b) => b.id)).toEqual([...expectedIds, undefined]);
    expect(list.at(-1)).toEqual(POISON_BUYERS[2]);
    expect(list.find((b) => b.id === 'buyer-poison-2').name).toHaveLength(300_000);

    // A window from mid-February: the valid March rows (the one with an id first: a missing id sorts
    // last), then "not-a-date", which compares as a string ("n" > "2") and sorts after date-times. The
    // row without lastUpdateTime and the one holding a number match no comparison with a date-time.
    const window = await query(probe, 'buyer', '(ge lastUpdateTime "2026-02-15T00:00:00.000Z")');
    expect(window.data).toEqual([POISON_BUYERS[1], POISON_BUYERS[2], POISON_BUYERS[0]]);
    // With an upper bound (the sync's windows have one) the string "not-a-date" falls outside.
    const bounded = await query(probe, 'buyer', `(and (ge lastUpdateTime "2026-02-15T00:00:00.000Z") (le lastUpdateTime "${clock.iso()}"))`);
    expect(bounded.data).toEqual([POISON_BUYERS[1], POISON_BUYERS[2]]);

    // Sorted without a filter: the number first (numbers before date-times), then every date-time,
    // then the other strings, then the missing value.
    const all = (await query(probe, 'buyer', undefined)).data as any[];
    expect(all).toHaveLength(generated.length + 5);
    expect(all[0]).toEqual(POISON_BUYERS[4]);
    expect(all.slice(-2)).toEqual([POISON_BUYERS[0], POISON_BUYERS[3]]);
    // List filters compare what is stored: the unknown enum value is found as it is.
    expect((await probe.api('/org/org-1/buyer', { query: { status: 'FROZEN' } })).json).toEqual([POISON_BUYERS[0]]);
  });

  it('produces a whole page of rows without an id through a window query', async () => {
    const probe = await start();
    const rows = Array.from({ length: 25 }, (_, i) => ({ firstName: `Nobody ${i}`, lastUpdateTime: '2026-03-02T00:00:00.000Z', buyerID: 'buyer-000001' }));
    await inject(probe, 'contacts', rows);
    const q = '(ge lastUpdateTime "2026-03-01T00:00:00.000Z")';
    const first = await query(probe, 'contact', q, { page_size: 20 });
    expect(first.data).toEqual(rows.slice(0, 20)); // in the order they arrived
    expect(first.total_count).toBe(25);
    expect((await query(probe, 'contact', q, { page_size: 20, page_number: 2 })).data).toEqual(rows.slice(20));
  });

  it('replaces a known record in place, keeping its indexes, and lists offers without metaInfo', async () => {
    const probe = await start();
    const original = (await probe.records('offers')).find((o) => o.externalID);
    const { metaInfo: _dropped, ...rest } = original;
    const poison = { ...rest, lastUpdateTime: 'not-a-date', status: 'SHELVED', contactIds: 'not-a-list' };
    expect(await inject(probe, 'offers', [poison])).toMatchObject({ added: 0, replaced: 1 });
    expect((await probe.api(`/org/org-1/offer/${original.id}`)).json).toEqual(poison);
    expect((await probe.api(`/org/org-1/offerExternalId/${encodeURIComponent(original.externalID)}`)).json).toEqual(poison);
    const offers = await probe.records('offers');
    expect(offers.filter((o) => o.id === original.id)).toEqual([poison]);
    // A metaInfo filter of List Offers meets the offer that has none and simply does not match it.
    const filtered = await probe.api('/org/org-1/offer', { query: { crmBDealId: 'deal-that-nobody-has' } });
    expect(filtered.status).toBe(200);
    expect(filtered.json).toEqual([]);
  });

  it("lists a poison term among its entitlement's terms", async () => {
    const probe = await start();
    const term = { id: 'term-poison-1', entitlementID: 'ent-000001', commitAmount: 'a lot', lastUpdateTime: MARCH, info: { type: 'MYSTERY' } };
    await inject(probe, 'entitlementTerms', [term, { commitAmount: -1 }]);
    const terms = (await probe.api('/org/org-1/entitlement/ent-000001/entitlementTerm')).json as any[];
    expect(terms.at(-1)).toEqual(term);
    expect((await probe.api('/org/org-1/entitlement/ent-000001/entitlementTerm/term-poison-1')).json).toEqual(term);
  });

  it('serves poison events in (timestamp, eventID) order and never reuses an injected eventID', async () => {
    const probe = await start();
    const before = await probe.records('notificationEvents');
    const lastTimestamp = before.at(-1).timestamp;
    const noEventId = { organizationID: 'org-1', version: 7, action: 'EXPLODED', entityType: 'OFFER', entityID: 'offer-000001', timestamp: MARCH, lastUpdateTime: MARCH };
    const unknownVersion = { eventID: 'evt-poison', version: 2, action: 'UPDATED', entityType: 'ENTITLEMENT', entityID: 'ent-000001', timestamp: MARCH, lastUpdateTime: MARCH };
    const empty = {};
    // The eventID the next change would get: events held + the three above + this one, plus one.
    const squatter = { eventID: `evt-${String(before.length + 5).padStart(7, '0')}`, action: 'UPDATED', entityType: 'REFERRAL', entityID: 'ref-000001', timestamp: '2026-03-02T00:00:00.000Z', lastUpdateTime: '2026-03-02T00:00:00.000Z' };
    await inject(probe, 'notificationEvents', [noEventId, unknownVersion, empty, squatter]);
    expect(lastTimestamp < MARCH).toBe(true);

    // The feed: same timestamp ordered by eventID (a missing one after the strings), no timestamp last.
    const feed = (await probe.api('/org/org-1/notificationEvent', { query: { limit: 1000, offset: before.length } })).json.notificationEvents;
    expect(feed).toEqual([unknownVersion, noEventId, squatter, empty]);
    const since = (await probe.api('/org/org-1/notificationEvent', { query: { since: MARCH } })).json.notificationEvents;
    expect(since).toEqual([unknownVersion, noEventId, squatter]);
    const forOffer = (await probe.api('/org/org-1/notificationEvent/OFFER/offer-000001')).json.notificationEvents as any[];
    expect(forOffer.at(-1)).toEqual(noEventId);

    clock.advance(60);
    const { changes } = (await probe.control('POST', '/changes', { count: 3 })).json;
    const taken = new Set(before.map((e) => e.eventID).concat('evt-poison', squatter.eventID));
    for (const change of changes) expect(taken.has(change.eventID)).toBe(false);
    expect(new Set(changes.map((c: any) => c.eventID)).size).toBe(3);
  });

  it('refuses a kind it cannot inject and a body that is not a list of objects, naming the problem', async () => {
    const probe = await start();
    const organizations = await probe.control('POST', '/records/organizations', { records: [{}] });
    expect(organizations.status).toBe(404);
    expect(organizations.json).toMatch(/organizations cannot be injected; one of buyers, contacts, offers, entitlements, entitlementTerms, referrals, products, notificationEvents/);
    const notList = await probe.control('POST', '/records/offers', { records: { id: 'x' } });
    expect(notList.status).toBe(400);
    expect(notList.json.message).toMatch(/records must be a list/);
    const notObject = await probe.control('POST', '/records/offers', { records: [{ id: 'fine' }, 'offer-2'] });
    expect(notObject.status).toBe(400);
    expect(notObject.json.message).toBe('records[1] must be a JSON object, got a string');
    expect((await probe.control('POST', '/records/offers', { rows: [] })).json.message).toMatch(/unknown field rows/);
    // Nothing of a refused request was stored.
    expect((await probe.records('offers')).some((o) => o.id === 'fine')).toBe(false);
  });

  it('leaves poison terms alone when their entitlements change', async () => {
    const probe = await start();
    // Every term turned bad (and without info, which a renewal would copy from).
    const poisoned = (await probe.records('entitlementTerms')).map(({ info: _info, ...term }) => ({ ...term, lastUpdateTime: 'not-a-date', reportedAmount: 'lots' }));
    expect(await inject(probe, 'entitlementTerms', poisoned)).toMatchObject({ added: 0, replaced: poisoned.length });
    clock.advance(60);
    const done = (await probe.control('POST', '/changes', { count: 40, kinds: ['termUsage', 'renewal', 'termCommit'] })).json.changes as any[];
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((c) => c.entityType === 'ENTITLEMENT')).toBe(true); // termCommit needs a sound term: none left
    expect(await probe.records('entitlementTerms')).toEqual(poisoned);
  });

  it('keeps poison rows in the journal, and the change driver leaves them alone', async () => {
    const journal = path.join(dir, 'poison.jsonl');
    const probe = await start({ journalPath: journal });
    const buyers = await probe.records('buyers');
    const active = buyers.filter((b) => b.status === 'ACTIVE');
    const frozen = { ...active[0], lastUpdateTime: 'not-a-date' }; // ACTIVE, yet poison: never deleted by the driver
    await inject(probe, 'buyers', [frozen, { name: 'no id', lastUpdateTime: MARCH }]);
    await inject(probe, 'notificationEvents', [{ version: 9, timestamp: MARCH }]);
    await inject(probe, 'entitlementTerms', [{ id: 'term-poison-2', entitlementID: 'ent-000002', lastUpdateTime: 42 }]);
    clock.advance(60);
    const { changes } = (await probe.control('POST', '/changes', { count: active.length + 5, kinds: ['buyerDeleted'] })).json;
    expect(changes).toHaveLength(active.length - 1);
    expect(changes.map((c: any) => c.id)).not.toContain(frozen.id);
    expect((await probe.api(`/org/org-1/buyer/${frozen.id}`)).json).toEqual(frozen);

    const kinds = ['buyers', 'entitlementTerms', 'notificationEvents', 'offers', 'entitlements'];
    const dump = async (p: SandboxProbe) => Object.fromEntries(await Promise.all(kinds.map(async (kind) => [kind, await p.records(kind)])));
    const before = await dump(probe);
    const copy = path.join(dir, 'poison-copy.jsonl');
    copyFileSync(journal, copy); // what a SIGKILL would leave
    const second = await start({ journalPath: copy });
    expect(await dump(second)).toEqual(before);
    expect((await second.api('/org/org-1/entitlement/ent-000002/entitlementTerm/term-poison-2')).json).toEqual({ id: 'term-poison-2', entitlementID: 'ent-000002', lastUpdateTime: 42 });
    // Still poison after the restart: the driver does not touch it.
    clock.advance(60);
    await second.control('POST', '/changes', { count: 5, kinds: ['buyerDeleted'] });
    expect((await second.api(`/org/org-1/buyer/${frozen.id}`)).json).toEqual(frozen);
  });
});
