// The HubSpot connector against the HubSpot sandbox, through the real @hubspot/api-client: batch
// upserts and their cost, per-record results, associations, contacts one per email, search reads past
// the 10,000 ceiling, typed filter values with hostile strings, pipelines by label, and setup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let hubspot: HubSpotSandbox;
const connect = (extra: Record<string, unknown> = {}) =>
  createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', portalId: '4242', ...extra }, { crmAccessToken: hubspot.accessToken });

beforeAll(async () => {
  hubspot = await startHubSpotSandbox({ tenSecondlyLimit: 100_000, dailyLimit: 10_000_000, searchPerSecond: 1000 });
  const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
  expect(report.problems).toEqual([]);
});
afterAll(() => hubspot?.stop());

const calls = async (): Promise<Record<string, number>> => control(hubspot, 'GET', '/calls');
const records = async (type: string): Promise<any[]> => {
  const body = await control(hubspot, 'GET', `/records/${type}`);
  return Array.isArray(body) ? body : (body.records ?? body.results);
};
const propsOf = (record: any) => record.properties ?? record;

describe('writes', () => {
  it('upserting 250 new deals costs exactly 3 batch calls and answers each record, created', async () => {
    const crm = connect();
    await control(hubspot, 'DELETE', '/calls');
    const items = Array.from({ length: 250 }, (_, i) => ({
      sourceId: `offer-${i}`,
      externalIdField: 'commerce_offer_id',
      externalId: `offer-${i}`,
      fields: { dealname: `Deal ${i}`, amount: 1000 + i, pipeline: 'Marketplace offers', dealstage: 'Draft' },
    }));
    const results = await crm.upsert('deals', items);
    expect((await calls())['deals.batch.upsert']).toBe(3);
    expect(results).toHaveLength(250);
    expect(results.every((result) => result.ok && result.created)).toBe(true);
    expect(results.map((result) => result.sourceId)).toEqual(items.map((item) => item.sourceId));
    const stored = (await records('deals')).map(propsOf).find((deal) => deal.commerce_offer_id === 'offer-7');
    expect(stored).toMatchObject({ dealname: 'Deal 7', amount: '1007' });
    // Stored as ids, read back as labels.
    expect(stored.pipeline).not.toBe('Marketplace offers');
    const read = await crm.findByExternalIds('deals', 'commerce_offer_id', ['offer-7'], ['dealname', 'pipeline', 'dealstage']);
    expect(read.get('offer-7')).toMatchObject({ dealname: 'Deal 7', pipeline: 'Marketplace offers', dealstage: 'Draft' });

    // Again: updates, same ids.
    const again = await crm.upsert('deals', items.slice(0, 3).map((item) => ({ ...item, fields: { ...item.fields, amount: 5 } })));
    expect(again.map((result) => result.ok && !result.created && result.crmId)).toEqual(results.slice(0, 3).map((result) => result.ok && result.crmId));
  });

  it('deals moved to a stage by id: an id naming no deal in this portal is answered OBJECT_NOT_FOUND from the pipeline read, with no update sent for it', async () => {
    const crm = connect();
    const [made] = await crm.upsert('deals', [{ sourceId: 'staged-0', externalIdField: 'commerce_offer_id', externalId: 'staged-0', fields: { dealname: 'Staged', pipeline: 'Marketplace offers', dealstage: 'Draft' } }]);
    const realId = made!.ok ? made!.crmId : '';
    await control(hubspot, 'DELETE', '/calls');
    const results = await crm.upsert('deals', [
      { sourceId: 'staged-0', externalIdField: 'commerce_offer_id', externalId: 'staged-0', crmId: realId, fields: { dealstage: 'Accepted' } },
      { sourceId: 'staged-1', externalIdField: 'commerce_offer_id', externalId: 'staged-1', crmId: '98765432101', fields: { dealstage: 'Accepted' } },
    ]);
    expect(results[0]).toMatchObject({ sourceId: 'staged-0', ok: true, crmId: realId });
    expect(results[1]).toEqual({ sourceId: 'staged-1', ok: false, error: { code: 'OBJECT_NOT_FOUND', message: 'HubSpot has no deal with id 98765432101' } });
    const counted = await calls();
    expect(counted['deals.batch.read']).toBe(1);
    expect(counted['deals.batch.update']).toBe(1);
    const stored = (await records('deals')).map(propsOf).find((deal) => deal.commerce_offer_id === 'staged-0');
    const read = await crm.findByExternalIds('deals', 'commerce_offer_id', ['staged-0'], ['dealstage']);
    expect(stored).toBeDefined();
    expect(read.get('staged-0')).toMatchObject({ dealstage: 'Accepted' });

    // Only ids naming nothing here: the read answers them all, and no update is sent.
    await control(hubspot, 'DELETE', '/calls');
    const alone = await crm.upsert('deals', [{ sourceId: 'staged-2', externalIdField: 'commerce_offer_id', externalId: 'staged-2', crmId: '98765432102', fields: { dealstage: 'Accepted' } }]);
    expect(alone).toEqual([{ sourceId: 'staged-2', ok: false, error: { code: 'OBJECT_NOT_FOUND', message: 'HubSpot has no deal with id 98765432102' } }]);
    const aloneCalls = await calls();
    expect(aloneCalls['deals.batch.read']).toBe(1);
    expect(aloneCalls['deals.batch.update'] ?? 0).toBe(0);
  });

  it('one bad value in a batch: the others are written, the bad one is refused with HubSpot\'s words', async () => {
    const crm = connect();
    const results = await crm.upsert('deals', [
      { sourceId: 'good-1', externalIdField: 'commerce_offer_id', externalId: 'good-1', fields: { dealname: 'Good 1', amount: 10 } },
      { sourceId: 'bad-1', externalIdField: 'commerce_offer_id', externalId: 'bad-1', fields: { dealname: 'Bad', amount: 'lots' } },
      { sourceId: 'good-2', externalIdField: 'commerce_offer_id', externalId: 'good-2', fields: { dealname: 'Good 2', offer_expiration: '2027-01-01T00:00:00Z' } },
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    expect(!results[1]!.ok && results[1]!.error.message).toMatch(/amount/);
  });

  it('a unique value held by another record: a 207 per record, the rest written', async () => {
    const crm = connect();
    const [first] = await crm.upsert('deals', [{ sourceId: 'r-1', externalIdField: 'commerce_referral_id', externalId: 'r-1', fields: { dealname: 'Referral 1', commerce_offer_id: 'clash-offer' } }]);
    expect(first!.ok).toBe(true);
    const results = await crm.upsert('deals', [
      { sourceId: 'r-2', externalIdField: 'commerce_referral_id', externalId: 'r-2', fields: { dealname: 'Referral 2', commerce_offer_id: 'clash-offer' } },
      { sourceId: 'r-3', externalIdField: 'commerce_referral_id', externalId: 'r-3', fields: { dealname: 'Referral 3' } },
    ]);
    expect(results[0]).toMatchObject({ sourceId: 'r-2', ok: false, error: { code: 'CONFLICT' } });
    expect(results[1]).toMatchObject({ sourceId: 'r-3', ok: true, created: true });
  });

  it('a missing property or pipeline stage is named, and nothing else stops', async () => {
    const crm = connect();
    const results = await crm.upsert('deals', [
      { sourceId: 'm-1', externalIdField: 'commerce_offer_id', externalId: 'm-1', fields: { dealname: 'x', no_such_property: 'y' } },
      { sourceId: 'm-2', externalIdField: 'commerce_offer_id', externalId: 'm-2', fields: { dealname: 'x', pipeline: 'Marketplace offers', dealstage: 'Nowhere' } },
      { sourceId: 'm-3', externalIdField: 'commerce_offer_id', externalId: 'm-3', fields: { dealname: 'fine' } },
    ]);
    expect(!results[0]!.ok && results[0]!.error.message).toMatch(/no property no_such_property: run crm-sync setup/);
    expect(!results[1]!.ok && results[1]!.error.message).toMatch(/no the deal stage "Nowhere"/);
    expect(results[2]!.ok).toBe(true);
  });

  it('references become associations: a deal to its company and contacts; one person on two buyers is one contact on both companies', async () => {
    const crm = connect();
    const companies = await crm.upsert('companies', ['b-1', 'b-2'].map((id) => ({ sourceId: id, externalIdField: 'commerce_buyer_id', externalId: id, fields: { name: `Buyer ${id}` } })));
    expect(companies.every((result) => result.ok)).toBe(true);
    const contacts = await crm.upsert('contacts', [
      { sourceId: 'c-1', externalIdField: 'commerce_contact_id', externalId: 'c-1', fields: { email: 'Pat@Example.com', firstname: 'Pat', companies: { commerce_buyer_id: 'b-1' } } },
      { sourceId: 'c-2', externalIdField: 'commerce_contact_id', externalId: 'c-2', fields: { email: 'pat@example.com', firstname: 'Pat', companies: { commerce_buyer_id: 'b-2' } } },
      { sourceId: 'c-3', externalIdField: 'commerce_contact_id', externalId: 'c-3', fields: { email: 'sam@example.com', companies: { commerce_buyer_id: 'b-1' } } },
    ]);
    expect(contacts.map((result) => result.ok)).toEqual([true, true, true]);
    const [pat1, pat2, sam] = contacts as { crmId: string }[];
    expect(pat2!.crmId).toBe(pat1!.crmId);
    expect(sam!.crmId).not.toBe(pat1!.crmId);
    const companyId = (id: string) => (companies.find((result) => result.sourceId === id) as { crmId: string }).crmId;
    const ofContact = await crm.associated!('contacts', [pat1!.crmId], 'companies');
    expect(ofContact.get(pat1!.crmId)!.sort()).toEqual([companyId('b-1'), companyId('b-2')].sort());

    const [deal] = await crm.upsert('deals', [
      { sourceId: 'o-a', externalIdField: 'commerce_offer_id', externalId: 'o-a', fields: { dealname: 'Associated', companies: { commerce_buyer_id: 'b-1' }, contacts: [{ commerce_contact_id: 'c-2' }, { commerce_contact_id: 'c-3' }] }, references: { 'commerce_contact_id=c-2': pat1!.crmId } },
    ]);
    expect(deal!.ok).toBe(true);
    const dealId = (deal as { crmId: string }).crmId;
    expect((await crm.associated!('deals', [dealId], 'companies')).get(dealId)).toEqual([companyId('b-1')]);
    expect((await crm.associated!('deals', [dealId], 'contacts')).get(dealId)!.sort()).toEqual([pat1!.crmId, sam!.crmId].sort());

    // A reference to a record HubSpot does not hold: the deal is written, its result names the missing company.
    const [orphan] = await crm.upsert('deals', [{ sourceId: 'o-b', externalIdField: 'commerce_offer_id', externalId: 'o-b', fields: { dealname: 'Orphan', companies: { commerce_buyer_id: 'b-404' } } }]);
    expect(orphan).toMatchObject({ ok: false, error: { code: 'ASSOCIATION_TARGET_MISSING' } });
    expect(!orphan!.ok && orphan!.error.message).toMatch(/no companies with commerce_buyer_id b-404/);
    expect((await records('deals')).map(propsOf).some((d) => d.commerce_offer_id === 'o-b')).toBe(true);
  });

  it('associate adds associations to records known by id with no write of the records themselves', async () => {
    const crm = connect();
    const [company] = await crm.upsert('companies', [{ sourceId: 'b-9', externalIdField: 'commerce_buyer_id', externalId: 'b-9', fields: { name: 'Buyer 9' } }]);
    const people = await crm.upsert('contacts', ['c-91', 'c-92'].map((id) => ({ sourceId: id, externalIdField: 'commerce_contact_id', externalId: id, fields: { email: `${id}@example.com`, companies: { commerce_buyer_id: 'b-9' } } })));
    const [deal] = await crm.upsert('deals', [{ sourceId: 'r-9', externalIdField: 'commerce_offer_id', externalId: 'r-9', fields: { dealname: 'Referral 9' } }]);
    expect([company, ...people, deal].every((result) => result!.ok)).toBe(true);
    const dealId = (deal as { crmId: string }).crmId;
    const [c91, c92] = people as { crmId: string }[];
    const stamp = propsOf((await records('deals')).find((d) => propsOf(d).commerce_offer_id === 'r-9')).hs_lastmodifieddate;

    await control(hubspot, 'DELETE', '/calls');
    const results = await crm.associate!('deals', [
      { sourceId: 'r-9', crmId: dealId, fields: { contacts: [{ commerce_contact_id: 'c-91' }, { commerce_contact_id: 'c-92' }] }, references: { 'commerce_contact_id=c-91': c91!.crmId } },
      { sourceId: 'r-404', crmId: dealId, fields: { contacts: [{ commerce_contact_id: 'c-404' }] } },
    ]);
    expect(results[0]).toEqual({ sourceId: 'r-9', ok: true, crmId: dealId, created: false });
    expect(results[1]).toMatchObject({ sourceId: 'r-404', ok: false, error: { code: 'ASSOCIATION_TARGET_MISSING' } });
    expect((await crm.associated!('deals', [dealId], 'contacts')).get(dealId)!.sort()).toEqual([c91!.crmId, c92!.crmId].sort());
    // No deal was written: only the association call, and a read for the contact whose id was not known.
    const counted = await calls();
    expect(Object.keys(counted).filter((kind) => /batch\.(upsert|update|create)/.test(kind) && counted[kind]! > 0)).toEqual([]);
    expect(counted['associations.batch.default']).toBe(1);
    expect(propsOf((await records('deals')).find((d) => propsOf(d).commerce_offer_id === 'r-9')).hs_lastmodifieddate).toBe(stamp);
    await expect(crm.associate!('deals', [{ sourceId: 'r-9', crmId: dealId, fields: { dealname: 'Renamed' } }])).rejects.toThrow(/only references/);
  });
});

describe('reads', () => {
  it('hostile strings are typed filter values: each finds exactly the record holding it', async () => {
    const crm = connect();
    const hostile = [`O'Neil`, 'a"b', 'back\\slash', 'x OR 1=1', '*', 'ünïcødé ✓', 'semi;colon', 'x'.repeat(500), `') OR ('1'='1`];
    const written = await crm.upsert('companies', hostile.map((value, i) => ({ sourceId: `h-${i}`, externalIdField: 'commerce_buyer_id', externalId: value, fields: { name: `Hostile ${i}` } })));
    expect(written.every((result) => result.ok)).toBe(true);
    for (const [i, value] of hostile.entries()) {
      const found = await crm.findWhereIn('companies', 'commerce_buyer_id', [value], ['name']);
      expect(found.map((record) => record.name), value).toEqual([`Hostile ${i}`]);
    }
    const byKey = await crm.findByExternalIds('companies', 'commerce_buyer_id', hostile, ['name']);
    expect([...byKey.keys()].sort()).toEqual([...hostile].sort());
  });

  it('an incremental read over 25,000 deals sharing one modified time returns each exactly once', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const fixed = await startHubSpotSandbox({ now: () => now, tenSecondlyLimit: 1_000_000, dailyLimit: 10_000_000, searchPerSecond: 1_000_000 });
    try {
      // Seeded through the API in batches of 100, all in the same instant of the sandbox's clock.
      for (let start = 0; start < 25_000; start += 100) {
        const response = await fetch(`${fixed.baseUrl}/crm/v3/objects/deals/batch/create`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fixed.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ inputs: Array.from({ length: 100 }, (_, i) => ({ properties: { dealname: `d${start + i}` } })) }),
        });
        expect(response.status).toBe(201);
      }
      now = new Date('2026-01-01T01:00:00Z');
      const crm = createHubSpotConnector({ baseUrl: fixed.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', searchPerSecond: 10 }, { crmAccessToken: fixed.accessToken }, {}, { wait: async () => {} });
      await control(fixed, 'DELETE', '/calls');
      const seen = new Map<string, number>();
      let pages = 0;
      for await (const page of crm.changedSince('deals', { since: new Date('2025-12-31T00:00:00Z'), fields: ['dealname'], pageSize: 200 })) {
        pages += 1;
        for (const record of page) seen.set(String(record.hs_object_id), (seen.get(String(record.hs_object_id)) ?? 0) + 1);
      }
      expect(seen.size).toBe(25_000);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
      expect(pages).toBe(125);
      // The first search, by modified time, finds a whole page of one time (ties come in no promised
      // order), so that time is read by hs_object_id in 125 searches of 200; a last one finds nothing
      // after it: 127, each the first page of its query (the 10,000 ceiling is never near).
      expect((await control(fixed, 'GET', '/calls'))['deals.search']).toBe(127);
    } finally {
      await fixed.stop();
    }
  }, 120_000);

  it('a cursor position reads strictly after it; the look-back widens only a first read', async () => {
    let now = new Date('2026-02-01T00:00:00Z');
    const clocked = await startHubSpotSandbox({ now: () => now, tenSecondlyLimit: 100_000, searchPerSecond: 1000 });
    try {
      const crm = createHubSpotConnector({ baseUrl: clocked.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: clocked.accessToken }, { lookbackSeconds: 600 });
      const made: string[] = [];
      for (const minute of [0, 5, 20]) {
        now = new Date(Date.UTC(2026, 1, 1, 0, minute));
        const [result] = await crm.insert('deals', [{ sourceId: `m${minute}`, fields: { dealname: `at ${minute}` } }]);
        made.push((result as { crmId: string }).crmId);
      }
      const read = async (options: { since: Date; afterId?: string }) => {
        const ids: string[] = [];
        for await (const page of crm.changedSince('deals', { ...options, fields: ['dealname'] })) ids.push(...page.map((record) => String(record.hs_object_id)));
        return ids;
      };
      // First read from minute 14: the 600 s look-back reaches back to minute 4, so minute 5 is read again.
      expect(await read({ since: new Date(Date.UTC(2026, 1, 1, 0, 14)) })).toEqual([made[1], made[2]]);
      // From the position (minute 5, its id): strictly after it.
      expect(await read({ since: new Date(Date.UTC(2026, 1, 1, 0, 5)), afterId: made[1] })).toEqual([made[2]]);
    } finally {
      await clocked.stop();
    }
  });
});

describe('rate limits and credentials', () => {
  it('keeps within the ten-secondly limit HubSpot names, so no call is refused with 429 and spent for nothing', async () => {
    const limited = await startHubSpotSandbox({ tenSecondlyLimit: 20, dailyLimit: 10_000_000, searchPerSecond: 1000 });
    try {
      const crm = createHubSpotConnector({ baseUrl: limited.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: limited.accessToken });
      // One call first: its answer names the limit (X-HubSpot-RateLimit-Max: 20).
      await crm.update('companies', [{ sourceId: 'first', crmId: '89999', fields: { name: 'First' } }]);
      await control(limited, 'DELETE', '/calls');
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => crm.update('companies', [{ sourceId: `w-${i}`, crmId: String(90_000 + i), fields: { name: `W ${i}` } }])),
      );
      // Each answered once (the ids name nothing: OBJECT_NOT_FOUND), and no request repeated after a 429.
      expect(results.flat().map((result) => (result.ok ? 'ok' : result.error.code))).toEqual(Array(30).fill('OBJECT_NOT_FOUND'));
      // 18 (90% of 20) went at once; the rest waited for the window to move on instead of being refused.
      expect((await control(limited, 'GET', '/calls'))['companies.batch.update']).toBe(30);
    } finally {
      await limited.stop();
    }
  }, 60_000);

  it("a ten-secondly 429 waits and goes on; the daily 429 parks the connection until midnight in the account's time zone", async () => {
    const waits: number[] = [];
    const crm = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: hubspot.accessToken }, {}, { wait: async (ms) => void waits.push(ms) });
    await control(hubspot, 'POST', '/faults', { endpoint: 'companies.batch.upsert', rate429: 0.5, seed: 7 });
    try {
      for (let i = 0; i < 6; i += 1) {
        const [result] = await crm.upsert('companies', [{ sourceId: `rl-${i}`, externalIdField: 'commerce_buyer_id', externalId: `rl-${i}`, fields: { name: 'Rate' } }]);
        expect(result!.ok).toBe(true);
      }
      expect(waits.length).toBeGreaterThan(0);
    } finally {
      await control(hubspot, 'DELETE', '/faults');
    }

    const limits = await control(hubspot, 'GET', '/limits');
    await control(hubspot, 'POST', '/limits', { dailyUsed: limits.dailyLimit ?? 10_000_000 });
    try {
      await expect(crm.upsert('companies', [{ sourceId: 'd-1', externalIdField: 'commerce_buyer_id', externalId: 'd-1', fields: { name: 'Daily' } }])).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
      const parked = crm.budget().parkedUntil!;
      // The account's next midnight (US/Eastern, the sandbox's default) as the sandbox itself counts the day.
      expect(parked.toISOString()).toBe((await control(hubspot, 'GET', '/limits')).resetsAt);
      // Parked: the next call is refused without reaching HubSpot.
      await control(hubspot, 'DELETE', '/calls');
      await expect(crm.findWhereIn('companies', 'commerce_buyer_id', ['x'])).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
      expect((await calls()).total ?? 0).toBe(0);
    } finally {
      await control(hubspot, 'POST', '/limits', { dailyUsed: 0 });
    }
  });

  it('a share of the daily budget stays with the account\'s other integrations', async () => {
    const crm = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', reservedShare: 0.3 }, { crmAccessToken: hubspot.accessToken });
    await control(hubspot, 'POST', '/limits', { dailyLimit: 1000, dailyUsed: 650 });
    try {
      // The account's details (read once: its time zone) and the first call leave 348 of 1000 (above the 300 reserved)... until the reserve.
      await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
      expect(crm.budget()).toMatchObject({ limit: 1000, used: 652, reserved: 0.3 });
      await control(hubspot, 'POST', '/limits', { dailyUsed: 699 });
      await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']); // leaves 300: the reserve is reached
      await control(hubspot, 'DELETE', '/calls');
      await expect(crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).rejects.toThrow(/reserved for the account's other integrations/);
      expect((await calls()).total ?? 0).toBe(0);
    } finally {
      await control(hubspot, 'POST', '/limits', { dailyLimit: 10_000_000, dailyUsed: 0 });
    }
  });

  it('OAuth: the access token is renewed when HubSpot says it expired; a refused refresh token is a credentials refusal', async () => {
    const crm = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'oauth', clientId: hubspot.oauth.clientId, entitlementObject: 'marketplace_entitlement' }, { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: hubspot.oauth.refreshToken });
    await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
    await control(hubspot, 'DELETE', '/calls');
    await control(hubspot, 'POST', '/tokens/expire');
    await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
    expect((await calls())['oauth.token']).toBe(1);

    const refused = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'oauth', clientId: hubspot.oauth.clientId, entitlementObject: 'marketplace_entitlement' }, { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: 'na1-revoked' });
    await expect(refused.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).rejects.toMatchObject({ name: 'CrmCredentialsRefusedError', code: 'BAD_REFRESH_TOKEN' });
  });

  it('OAuth: a token that expires again before the call is sent is renewed again; refused renewed tokens are retried later, never taken for revoked credentials', async () => {
    const crm = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'oauth', clientId: hubspot.oauth.clientId, entitlementObject: 'marketplace_entitlement' }, { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: hubspot.oauth.refreshToken });
    await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
    // The token in hand expires, and so do the next two renewed: the third renewal works.
    await control(hubspot, 'DELETE', '/calls');
    await control(hubspot, 'POST', '/tokens/expire', { next: 2 });
    await expect(crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).resolves.toBeInstanceOf(Map);
    expect((await calls())['oauth.token']).toBe(3);

    // Every renewed token refused: the call gives up for now with a retryable error, and the
    // connection is not marked as needing re-authorisation (the refresh token works throughout).
    await control(hubspot, 'POST', '/tokens/expire', { next: 100 });
    const error = await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'EXPIRED_AUTHENTICATION', retryable: true });
    expect((error as Error).name).not.toBe('CrmCredentialsRefusedError');
    expect((error as Error).message).toContain('expired');
    await control(hubspot, 'POST', '/tokens/expire', { next: 0 });
    await expect(crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).resolves.toBeInstanceOf(Map);
  });

  it("OAuth: a 429 from the token endpoint is HubSpot's rate limit, retried later, never taken for a refused refresh token", async () => {
    const crm = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'oauth', clientId: hubspot.oauth.clientId, entitlementObject: 'marketplace_entitlement' }, { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: hubspot.oauth.refreshToken });
    await control(hubspot, 'POST', '/faults', { endpoint: 'oauth.token', rate429: 1 });
    try {
      const error = await crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']).then(() => undefined, (thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
      expect((error as Error).name).not.toBe('CrmCredentialsRefusedError');
    } finally {
      await control(hubspot, 'DELETE', '/faults');
    }
    // The limit passed: the same refresh token works.
    await expect(crm.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).resolves.toBeInstanceOf(Map);
  });

  it('two connections in one process keep their own limits', async () => {
    const patient = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', reservedShare: 0 }, { crmAccessToken: hubspot.accessToken });
    const careful = createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', reservedShare: 0.9 }, { crmAccessToken: hubspot.accessToken });
    await control(hubspot, 'POST', '/limits', { dailyLimit: 1000, dailyUsed: 500 });
    try {
      await patient.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
      await careful.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']); // learns 498 left, under its 900 reserve
      await expect(careful.findByExternalIds('companies', 'commerce_buyer_id', ['b-1'])).rejects.toMatchObject({ name: 'CrmBudgetExhaustedError' });
      await patient.findByExternalIds('companies', 'commerce_buyer_id', ['b-1']);
      expect(patient.budget().parkedUntil).toBeUndefined();
    } finally {
      await control(hubspot, 'POST', '/limits', { dailyLimit: 10_000_000, dailyUsed: 0 });
    }
  });
});

describe('schema', () => {
  it('describe lists properties, unique ones, stage labels and the association pseudo-fields', async () => {
    const schema = await connect().describe('deals');
    expect(schema.fields.get('commerce_offer_id')).toMatchObject({ unique: true, externalId: true });
    expect(schema.fields.get('hs_lastmodifieddate')).toMatchObject({ updateable: false });
    expect(schema.fields.get('dealstage')!.picklistValues).toEqual(expect.arrayContaining(['Draft', 'Accepted', 'Contract Sent', 'Closed Won']));
    expect(schema.fields.get('companies')).toMatchObject({ type: 'reference', relationshipName: 'companies' });
  });

  it('setup twice creates nothing the second time', async () => {
    const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
    expect(report.created).toEqual([]);
    expect(report.problems).toEqual([]);
    expect(report.present).toEqual(expect.arrayContaining(['deals.commerce_offer_id', 'companies.commerce_buyer_id', 'deal pipeline "Marketplace offers"', 'deal pipeline "Co-sell referrals"']));
  });
});

describe('an account without custom objects', () => {
  it('setup says entitlements go to line items on the deal, creates their key, and the fallback mapping writes there', async () => {
    const plain = await startHubSpotSandbox({ customObjects: false, searchPerSecond: 1000 });
    try {
      const report = await setUpHubSpot({ baseUrl: plain.baseUrl, accessToken: plain.accessToken });
      expect(report.entitlementObject).toBe('line_items');
      expect(report.problems).toEqual([]);
      expect(report.created).toContain('line_items.commerce_entitlement_id');
      expect(report.created.some((made) => made.startsWith('marketplace_entitlement.'))).toBe(false);
      expect(report.present[0]).toMatch(/HubSpot refused to create the custom object .*custom objects come with HubSpot's Enterprise subscriptions/);

      const crm = createHubSpotConnector({ baseUrl: plain.baseUrl, auth: 'private-app', entitlementObject: 'line_items' }, { crmAccessToken: plain.accessToken });
      await crm.upsert('deals', [{ sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'Offer', pipeline: 'Marketplace offers', dealstage: 'Accepted' } }]);
      const [line] = await crm.upsert('line_items', [{ sourceId: 'e1', externalIdField: 'commerce_entitlement_id', externalId: 'e1', fields: { name: 'Analytics', price: 1200, quantity: 1, description: 'status: ACTIVE', deals: { commerce_offer_id: 'o1' } } }]);
      expect(line).toMatchObject({ ok: true, created: true });
      const dealId = (await crm.findByExternalIds('deals', 'commerce_offer_id', ['o1'])).get('o1')!.hs_object_id as string;
      expect((await crm.associated!('line_items', [(line as { crmId: string }).crmId], 'deals')).get((line as { crmId: string }).crmId)).toEqual([dealId]);
      await expect(crm.describe('marketplace_entitlement')).rejects.toThrow(/HubSpot has no custom object marketplace_entitlement in this account: run crm-sync setup/);
    } finally {
      await plain.stop();
    }
  });
});
