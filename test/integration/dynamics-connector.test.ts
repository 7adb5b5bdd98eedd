// The Dynamics connector against the Dataverse sandbox, through the real dynamics-web-api: setup twice,
// $batch upserts and their cost, per-record results with Dataverse's own messages, lookups bound by key
// and by GUID, contacts one per email, reads by (modifiedon, id) across rows sharing a second, typed
// filter values with hostile strings, service-protection 429s, expired tokens and refused credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmCredentialsRefusedError } from '../../crm/connector.ts';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let dynamics: DynamicsSandbox;
const settings = () => ({ orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, apiVersion: '9.2', concurrency: 8 });
const connect = (overrides: Parameters<typeof createDynamicsConnector>[3] = {}) => createDynamicsConnector(settings(), { crmClientSecret: dynamics.clientSecret }, {}, overrides);
const credentials = () => ({ authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` });

const calls = async (): Promise<Record<string, number>> => control(dynamics, 'GET', '/calls');
const rows = async (entitySet: string): Promise<any[]> => {
  const body = await control(dynamics, 'GET', `/records/${entitySet}`);
  return Array.isArray(body) ? body : (body.records ?? body.value);
};
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, operationMs: 0 }); // server time: the per-op cost tests set their own
});
afterAll(() => dynamics?.stop());

describe('setup', () => {
  it('creates the tables, columns, lookups and keys the mappings write, and is safe to run twice', async () => {
    const first = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials() });
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(expect.arrayContaining(['table ccs_marketplaceentitlement', 'account.ccs_commercebuyerid', 'contact.parentcustomerid_account -> account'.replace('contact.parentcustomerid_account -> account', 'ccs_marketplaceentitlement.ccs_accountid -> account')]));
    expect(first.created.some((item) => item.startsWith('account alternate key ccs_commercebuyerid_key'))).toBe(true);
    const second = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials() });
    expect(second.created).toEqual([]);
    expect(second.problems).toEqual([]);
    expect(second.present.length).toBeGreaterThanOrEqual(first.created.length);
  });
});

describe('writes', () => {
  it('upserting 2,500 new accounts starts at $batches of 10 and grows (6 calls); once grown, 2,000 more cost 2; each record answered with its GUID', async () => {
    const crm = connect();
    await crm.describe('account');
    await control(dynamics, 'DELETE', '/calls');
    const items = Array.from({ length: 2500 }, (_, i) => ({ sourceId: `buyer-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `buyer-${i}`, fields: { name: `Buyer ${i}`, ccs_marketplace: 'Marketplace B' } }));
    const results = await crm.upsert('account', items);
    const counted = await calls();
    // 10, 40, 160, 640, then Dataverse's 1,000 and the 650 left (issue #22 item 7: start small, grow by the measured pace).
    expect(counted['POST $batch']).toBe(6);
    expect(counted['$batch operations']).toBe(2500);
    expect(Object.entries(counted).filter(([name, count]) => /^(POST|PATCH|DELETE) /.test(name) && name !== 'POST $batch' && count > 0)).toEqual([]);
    expect(results.map((result) => result.sourceId)).toEqual(items.map((item) => item.sourceId));
    expect(results.every((result) => result.ok && GUID.test(result.crmId))).toBe(true);
    const stored = await rows('accounts');
    expect(stored.filter((row) => String(row.ccs_commercebuyerid).startsWith('buyer-'))).toHaveLength(2500);
    const seven = stored.find((row) => row.ccs_commercebuyerid === 'buyer-7');
    expect(seven).toMatchObject({ name: 'Buyer 7', ccs_marketplace: 'Marketplace B', accountid: results[7]!.ok ? results[7]!.crmId : undefined });

    await control(dynamics, 'DELETE', '/calls');
    const more = await crm.upsert('account', Array.from({ length: 2000 }, (_, i) => ({ sourceId: `more-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `more-${i}`, fields: { name: `More ${i}` } })));
    expect(more.every((result) => result.ok)).toBe(true);
    expect((await calls())['POST $batch']).toBe(2);

    // Again, by the GUIDs now linked: updates of the same rows.
    const again = await crm.upsert('account', items.slice(0, 3).map((item, i) => ({ ...item, crmId: (results[i] as { crmId: string }).crmId, fields: { name: `Renamed ${i}` } })));
    expect(again.map((result) => result.ok && !result.created && result.crmId)).toEqual(results.slice(0, 3).map((result) => result.ok && result.crmId));
    expect((await rows('accounts')).find((row) => row.ccs_commercebuyerid === 'buyer-1')).toMatchObject({ name: 'Renamed 1' });
  });

  it("a record Dataverse refuses inside a batch comes back with Dataverse's message while the others are written", async () => {
    const crm = connect();
    const results = await crm.upsert('account', [
      { sourceId: 'ok-1', externalIdField: 'ccs_commercebuyerid', externalId: 'ok-1', fields: { name: 'Fine' } },
      { sourceId: 'long-1', externalIdField: 'ccs_commercebuyerid', externalId: 'long-1', fields: { name: 'x'.repeat(161) } },
      { sourceId: 'ok-2', externalIdField: 'ccs_commercebuyerid', externalId: 'ok-2', fields: { name: 'Also fine' } },
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    const refused = results[1] as { ok: false; error: { code: string; message: string } };
    expect(refused.error.code).toMatch(/^0x/);
    expect(refused.error.message).toMatch(/length|exceed|160/i);
    const keys = (await rows('accounts')).map((row) => row.ccs_commercebuyerid);
    expect(keys).toEqual(expect.arrayContaining(['ok-1', 'ok-2']));
    expect(keys).not.toContain('long-1');
  });

  it('names the columns a table lacks and a key value Dataverse cannot take in a URL, without sending them', async () => {
    const crm = connect();
    const [missing, unusable, quoted] = await crm.upsert('account', [
      { sourceId: 'm', externalIdField: 'ccs_commercebuyerid', externalId: 'm', fields: { name: 'M', ccs_nosuchcolumn: 1 } },
      { sourceId: 'u', externalIdField: 'ccs_commercebuyerid', externalId: 'a/b', fields: { name: 'U' } },
      { sourceId: 'q', externalIdField: 'ccs_commercebuyerid', externalId: "O'Neil, \"Ltd\"", fields: { name: 'Q' } },
    ]);
    expect(missing).toMatchObject({ ok: false, error: { code: 'SCHEMA_MISSING', message: expect.stringContaining('ccs_nosuchcolumn') } });
    expect(unusable).toMatchObject({ ok: false, error: { code: 'KEY_UNUSABLE', message: expect.stringContaining('ccs_commercebuyerid') } });
    expect(quoted).toMatchObject({ ok: true });
    expect((await rows('accounts')).find((row) => row.name === 'Q')).toMatchObject({ ccs_commercebuyerid: "O'Neil, \"Ltd\"" });
  });

  it('binds lookups by the linked GUID, else by the parent key; a missing parent fails that record alone', async () => {
    const crm = connect();
    const [buyer] = await crm.upsert('account', [{ sourceId: 'parent-1', externalIdField: 'ccs_commercebuyerid', externalId: 'parent-1', fields: { name: 'Parent' } }]);
    const accountId = (buyer as { crmId: string }).crmId;
    const results = await crm.upsert('contact', [
      { sourceId: 'c-key', externalIdField: 'ccs_commercecontactid', externalId: 'c-key', fields: { lastname: 'ByKey', emailaddress1: 'bykey@example.com', parentcustomerid_account: { ccs_commercebuyerid: 'parent-1' } } },
      { sourceId: 'c-guid', externalIdField: 'ccs_commercecontactid', externalId: 'c-guid', fields: { lastname: 'ByGuid', emailaddress1: 'byguid@example.com', parentcustomerid_account: { ccs_commercebuyerid: 'renamed-elsewhere' } }, references: { 'ccs_commercebuyerid=renamed-elsewhere': accountId } },
      { sourceId: 'c-orphan', externalIdField: 'ccs_commercecontactid', externalId: 'c-orphan', fields: { lastname: 'Orphan', emailaddress1: 'orphan@example.com', parentcustomerid_account: { ccs_commercebuyerid: 'no-such-buyer' } } },
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, true, false]);
    expect((results[2] as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
    const contacts = new Map((await rows('contacts')).map((row) => [row.ccs_commercecontactid, row]));
    expect(contacts.get('c-key')).toMatchObject({ _parentcustomerid_value: accountId });
    expect(contacts.get('c-guid')).toMatchObject({ _parentcustomerid_value: accountId });
    expect(contacts.has('c-orphan')).toBe(false);
  });

  it('keeps one contact per email: a second commerce contact with that email is that contact, and a hand-made one is adopted', async () => {
    const crm = connect();
    const [handMade] = await crm.insert('contact', [{ sourceId: 'hand', fields: { lastname: 'Made by a salesperson', emailaddress1: 'same.person@example.com' } }]);
    const results = await crm.upsert('contact', [
      { sourceId: 'p-1', externalIdField: 'ccs_commercecontactid', externalId: 'p-1', fields: { lastname: 'Person', emailaddress1: 'Same.Person@example.com' } },
      { sourceId: 'p-2', externalIdField: 'ccs_commercecontactid', externalId: 'p-2', fields: { lastname: 'Person', emailaddress1: 'same.person@example.com' } },
      { sourceId: 'n-1', externalIdField: 'ccs_commercecontactid', externalId: 'n-1', fields: { lastname: 'New', emailaddress1: 'new.twice@example.com' } },
      { sourceId: 'n-2', externalIdField: 'ccs_commercecontactid', externalId: 'n-2', fields: { lastname: 'New', emailaddress1: 'NEW.twice@example.com' } },
    ]);
    expect(results.every((result) => result.ok)).toBe(true);
    const ids = results.map((result) => (result as { crmId: string }).crmId);
    expect(ids[0]).toBe((handMade as { crmId: string }).crmId);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[3]).toBe(ids[2]);
    const stored = (await rows('contacts')).filter((row) => /same\.person|new\.twice/i.test(String(row.emailaddress1)));
    expect(stored).toHaveLength(2);
    expect(stored.find((row) => row.contactid === ids[0])).toMatchObject({ ccs_commercecontactid: 'p-1' });
  });
});

describe('one contact per email, across runs', () => {
  it("a merged contact's later writes, by its link, leave the row on the first buyer's account", async () => {
    const crm = connect();
    const [a, b] = await crm.upsert('account', ['buyer-a', 'buyer-b'].map((id) => ({ sourceId: id, externalIdField: 'ccs_commercebuyerid', externalId: id, fields: { name: id } })));
    const contact = (id: string, buyer: string, crmId?: string) => ({ sourceId: id, externalIdField: 'ccs_commercecontactid', externalId: id, ...(crmId && { crmId }), fields: { lastname: id, emailaddress1: 'two.buyers@example.com', parentcustomerid_account: { ccs_commercebuyerid: buyer } } });
    const [first, second] = await crm.upsert('contact', [contact('q-1', 'buyer-a'), contact('q-2', 'buyer-b')]);
    const row = (first as { crmId: string }).crmId;
    expect((second as { crmId: string }).crmId).toBe(row);
    // The next run: both are linked to the row; q-2 changes.
    const again = await crm.upsert('contact', [{ ...contact('q-2', 'buyer-b', row), fields: { ...contact('q-2', 'buyer-b').fields, jobtitle: 'Buyer at two companies' } }]);
    expect(again[0]).toMatchObject({ ok: true, crmId: row });
    const stored = (await rows('contacts')).filter((found) => found.emailaddress1 === 'two.buyers@example.com');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ contactid: row, ccs_commercecontactid: 'q-1', jobtitle: 'Buyer at two companies', _parentcustomerid_value: (a as { crmId: string }).crmId });
    expect(stored[0]._parentcustomerid_value).not.toBe((b as { crmId: string }).crmId);
  });

  it('a record whose own row exists is written to it, though a hand-made row shares its email', async () => {
    const crm = connect();
    const [own] = await crm.upsert('contact', [{ sourceId: 'r-1', externalIdField: 'ccs_commercecontactid', externalId: 'r-1', fields: { lastname: 'Own', emailaddress1: 'twice.here@example.com' } }]);
    await crm.insert('contact', [{ sourceId: 'hand', fields: { lastname: 'Hand-made', emailaddress1: 'twice.here@example.com' } }]);
    const [written] = await crm.upsert('contact', [{ sourceId: 'r-1', externalIdField: 'ccs_commercecontactid', externalId: 'r-1', fields: { lastname: 'Own, renamed', emailaddress1: 'twice.here@example.com' } }]);
    expect(written).toMatchObject({ ok: true, crmId: (own as { crmId: string }).crmId });
    const stored = (await rows('contacts')).filter((found) => found.emailaddress1 === 'twice.here@example.com');
    expect(stored.map((found) => [found.ccs_commercecontactid ?? null, found.lastname]).sort()).toEqual([[null, 'Hand-made'], ['r-1', 'Own, renamed']]);
  });
});

describe('a $batch answered with CRLF line endings', () => {
  it("still answers every record with its GUID: the ones the client could not read are read back by key", async () => {
    const crlf = await startDynamicsSandbox({ batchLineEnding: '\r\n' });
    try {
      const report = await setUpDynamics({ orgUrl: crlf.orgUrl, credentials: { authority: crlf.authority, tenantId: crlf.tenantId, clientId: crlf.clientId, clientSecret: crlf.clientSecret, scope: `${new URL(crlf.orgUrl).origin}/.default` } });
      expect(report.problems).toEqual([]);
      const crm = createDynamicsConnector({ orgUrl: crlf.orgUrl, authority: crlf.authority, tenantId: crlf.tenantId, clientId: crlf.clientId, apiVersion: '9.2', concurrency: 8 }, { crmClientSecret: crlf.clientSecret });
      const results = await crm.upsert('account', Array.from({ length: 3 }, (_, i) => ({ sourceId: `crlf-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `crlf-${i}`, fields: { name: `CRLF ${i}` } })));
      const stored = new Map(((await control(crlf, 'GET', '/records/accounts')) as any[]).map((row) => [row.ccs_commercebuyerid, row.accountid]));
      expect(results.map((result) => result.ok && result.crmId)).toEqual(['crlf-0', 'crlf-1', 'crlf-2'].map((key) => stored.get(key)));
    } finally {
      await crlf.stop();
    }
  });
});

describe('reads', () => {
  it('reads every row once by (modifiedon, id), pages of 1,000, though thousands share one second', async () => {
    const crm = connect();
    const seen: string[] = [];
    let cursor: { since: Date; afterId?: string } = { since: new Date(0) };
    for (;;) {
      const pages = crm.changedSince('account', { ...cursor, fields: ['name', 'ccs_commercebuyerid'], pageSize: 1000 })[Symbol.asyncIterator]();
      const first = await pages.next();
      await pages.return?.(undefined);
      if (first.done || first.value.length === 0) break;
      seen.push(...first.value.map((row) => String(row.id)));
      const last = first.value.at(-1)!;
      cursor = { since: new Date(String(last.modifiedon)), afterId: String(last.id) };
    }
    const all = (await rows('accounts')).map((row) => row.accountid);
    expect(seen.length).toBe(all.length);
    expect(new Set(seen).size).toBe(all.length);
  });

  it('looks up 250 values in one $batch of GET parts, each part typed, every match returned once', async () => {
    const crm = connect();
    const wanted = Array.from({ length: 250 }, (_, i) => `buyer-${i * 10}`);
    await crm.describe('account');
    await control(dynamics, 'DELETE', '/calls');
    const found = await crm.findByExternalIds('account', 'ccs_commercebuyerid', [...wanted, "nope') or (1 eq 1"], ['name']);
    const counted = await calls();
    expect(counted['POST $batch']).toBe(1);
    expect(counted['$batch operations']).toBe(3);
    expect(Object.keys(counted).filter((name) => name.startsWith('GET ') && counted[name]! > 0)).toEqual([]);
    expect([...found.keys()].sort()).toEqual([...wanted].sort());
    expect(found.get('buyer-10')).toMatchObject({ name: 'Buyer 10' });
  });

  it('types every filter value: hostile strings match only themselves', async () => {
    const crm = connect();
    await crm.upsert('account', [
      { sourceId: 'h1', externalIdField: 'ccs_commercebuyerid', externalId: 'h1', fields: { name: "O'Neil" } },
      { sourceId: 'h2', externalIdField: 'ccs_commercebuyerid', externalId: 'h2', fields: { name: "') or (1 eq 1" } },
    ]);
    const found = await crm.findWhereIn('account', 'name', ["O'Neil", "') or (1 eq 1", "x' or name ne 'y"], ['name']);
    expect(found.map((row) => row.name).sort()).toEqual(["') or (1 eq 1", "O'Neil"]);
    expect(await crm.findWhereIn('account', 'id', ["00000000-0000-0000-0000-000000000000' or 1 eq 1"], ['name'])).toEqual([]);
    const byKey = await crm.findByExternalIds('account', 'ccs_commercebuyerid', ['h1', 'h2', 'nope'], ['name']);
    expect([...byKey.keys()].sort()).toEqual(['h1', 'h2']);
  });
});

describe('which carried ids name rows of this environment', () => {
  it('answers 300 ids in one $batch of reads, each as it was given; a non-GUID or hostile id names nothing', async () => {
    const crm = connect();
    const made = await crm.upsert('account', Array.from({ length: 150 }, (_, i) => ({ sourceId: `e-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `exists-${i}`, fields: { name: `Exists ${i}` } })));
    const real = made.map((result) => (result.ok ? result.crmId : ''));
    // Written as another system might carry them: the first one in capitals with braces.
    const asCarried = [`{${real[0]!.toUpperCase()}}`, ...real.slice(1)];
    const absent = Array.from({ length: 150 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const hostile = [`${real[1]}' or 1 eq 1 or '`, 'not-a-guid', ''];
    await control(dynamics, 'DELETE', '/calls');
    const existing = await crm.existingIds!('account', [...asCarried, ...absent, ...hostile]);
    expect([...existing].sort()).toEqual([...asCarried].sort());
    const counted = await calls();
    expect(counted['POST $batch']).toBe(1);
    expect(counted['$batch of reads only']).toBe(1);
    expect(counted['$batch operations']).toBe(3);
    expect(await crm.existingIds!('account', ['not-a-guid'])).toEqual(new Set());
  });
});

describe('service protection and credentials', () => {
  it("waits Retry-After on a 429 (the client does not retry) and then goes on", async () => {
    const waits: number[] = [];
    const crm = connect({ wait: async (ms) => void waits.push(ms) });
    await crm.describe('account');
    await control(dynamics, 'POST', '/faults', { endpoint: '$batch', rate429: 0.6, seed: 7 });
    try {
      const results = await crm.upsert('account', Array.from({ length: 5 }, (_, i) => ({ sourceId: `rl-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `rl-${i}`, fields: { name: `Limited ${i}` } })));
      expect(results.every((result) => result.ok)).toBe(true);
    } finally {
      await control(dynamics, 'DELETE', '/faults');
    }
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms === 1000)).toBe(true);
    expect(crm.figures().rateLimitWaits).toBe(waits.length);
  });

  it('an answer lost on the way (carried out, cut off half way) is given up at the call deadline and tried again: each record once', async () => {
    const crm = createDynamicsConnector({ ...settings(), requestTimeoutMs: 1500 }, { crmClientSecret: dynamics.clientSecret }, {}, { wait: async () => {} });
    await crm.describe('account');
    // Seeded: the first $batch calls are carried out and their answers cut off; a later one arrives whole.
    await control(dynamics, 'POST', '/faults', { endpoint: '$batch', truncatedRate: 0.6, seed: 7 });
    const items = Array.from({ length: 4 }, (_, i) => ({ sourceId: `lost-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `lost-${i}`, fields: { name: `Lost answer ${i}` } }));
    try {
      const results = await crm.upsert('account', items);
      expect(results.filter((result) => !result.ok)).toEqual([]);
      expect((await control(dynamics, 'GET', '/faults')).injected.truncated).toBeGreaterThan(0);
    } finally {
      await control(dynamics, 'DELETE', '/faults');
    }
    // No answer: the $batch of upserts by key is sent again by the writer (idempotent), not blindly by the transport.
    expect(crm.figures().unanswered).toBeGreaterThan(0);
    const stored = (await rows('accounts')).filter((row) => String(row.ccs_commercebuyerid).startsWith('lost-'));
    expect(stored.map((row) => row.ccs_commercebuyerid).sort()).toEqual(['lost-0', 'lost-1', 'lost-2', 'lost-3']);
  });

  it("keeps its requests in flight within its concurrency, so Dataverse's concurrency limit is not hit; past it, 429s are waited out", async () => {
    // Dataverse allows this app 3 requests at once here, each taking 100 ms; 12 lookups are asked at once.
    await control(dynamics, 'POST', '/limits', { concurrency: 3 });
    await control(dynamics, 'POST', '/faults', { endpoint: 'accounts', latencyMs: 100 });
    const lookups = (crm: ReturnType<typeof connect>) => Promise.all(Array.from({ length: 12 }, (_, i) => crm.findWhereIn('account', 'ccs_commercebuyerid', [`buyer-${i}`], ['name'])));
    try {
      const bounded = createDynamicsConnector({ ...settings(), concurrency: 3 }, { crmClientSecret: dynamics.clientSecret });
      await bounded.describe('account');
      const found = await lookups(bounded);
      expect(found.map((rows) => rows.length)).toEqual(Array(12).fill(1));
      expect(bounded.figures().rateLimitWaits).toBe(0);

      const eager = createDynamicsConnector({ ...settings(), concurrency: 12 }, { crmClientSecret: dynamics.clientSecret });
      await eager.describe('account');
      const alsoFound = await lookups(eager);
      expect(alsoFound.map((rows) => rows.length)).toEqual(Array(12).fill(1));
      expect(eager.figures().rateLimitWaits).toBeGreaterThan(0);
    } finally {
      await control(dynamics, 'DELETE', '/faults');
      await control(dynamics, 'POST', '/limits', { concurrency: 52 });
    }
  });

  it('renews an expired token once and goes on', async () => {
    const crm = connect();
    await crm.describe('account');
    await control(dynamics, 'POST', '/tokens/expire');
    expect(await crm.findByExternalIds('account', 'ccs_commercebuyerid', ['h1'], ['name'])).toHaveProperty('size', 1);
    expect(crm.figures().tokenRenewals).toBe(1);
  });

  it("refused credentials are a CrmCredentialsRefusedError keeping Microsoft's AADSTS message", async () => {
    await control(dynamics, 'POST', '/clients/revoke');
    try {
      const error = await connect().describe('contact').catch((caught) => caught);
      expect(error).toBeInstanceOf(CrmCredentialsRefusedError);
      expect(error.message).toMatch(/AADSTS/);
      expect(error.message).not.toContain(dynamics.clientSecret);
    } finally {
      await control(dynamics, 'POST', '/clients/restore');
    }
  });

  it('verify names the organization (WhoAmI)', async () => {
    const who = await connect().verify();
    expect(who.organizationId).toMatch(GUID);
  });
});
