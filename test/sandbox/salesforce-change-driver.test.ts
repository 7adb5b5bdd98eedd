// Salesforce sandbox: the seller change driver (POST /_sandbox/changes, the changesPerSecond timer).
// Each kind is checked by reading the records back through jsforce; changes are saves like API writes
// (SystemModstamp moves, the journal keeps them across a restart), drawn from a seed, and nothing
// happens, without an error, when the org has nothing a kind can change.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'jsforce';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox, type SalesforceSandboxOptions } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const STAGES = ['Prospecting', 'Qualification', 'Needs Analysis', 'Value Proposition', 'Id. Decision Makers', 'Perception Analysis', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost'];
const MARKETPLACES = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+0000$/;

let dir: string;
const started: SalesforceSandbox[] = [];
let clockMs = Date.parse('2026-06-01T10:00:00.000Z');
const now = () => new Date(clockMs);
const stampOf = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('Z', '+0000');

async function start(options: SalesforceSandboxOptions = {}) {
  const sandbox = await startSalesforceSandbox({ now, ...options });
  started.push(sandbox);
  const { conn } = await clientCredentialsConnection(sandbox);
  return { sandbox, conn };
}
const changes = async (sandbox: SalesforceSandbox, body: unknown): Promise<any[]> => (await control(sandbox, 'POST', '/changes', body)).changes;
const dump = (sandbox: SalesforceSandbox, object: string): Promise<any[]> => control(sandbox, 'GET', `/records/${object}`);
const rawControl = (sandbox: SalesforceSandbox, method: string, path: string, body: unknown) =>
  fetch(`${sandbox.instanceUrl}/_sandbox${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const byId = async (conn: Connection, ids: string[]) => {
  const found = await conn.query<any>(
    `SELECT Id, Name, StageName, CloseDate, Amount, AccountId, Cosell_Share__c, Cosell_Partner__c, Private_Offer_Requested__c, Commerce_Product_Id__c, SystemModstamp, LastModifiedDate, CreatedDate FROM Opportunity WHERE Id IN (${ids.map((id) => `'${id}'`).join(', ')})`,
  );
  return new Map(found.records.map((r) => [r.Id as string, r]));
};

/**
 * Three Accounts with a buyer id (one on Marketplace C, one whose buyer is deleted), one without, and
 * three open Opportunities, none shared, none with a draft requested.
 */
async function seedOrg(conn: Connection) {
  const accounts = (await conn.sobject('Account').create([
    { Name: 'Acme', Commerce_Buyer_Id__c: 'b-1', Marketplace__c: 'Marketplace C' },
    { Name: 'Globex', Commerce_Buyer_Id__c: 'b-2' },
    { Name: 'Gone', Commerce_Buyer_Id__c: 'b-3', Marketplace_Status__c: 'Deleted' },
    { Name: 'No Buyer' },
  ])) as any[];
  const [acme, globex, gone, noBuyer] = accounts.map((a) => a.id as string);
  const opportunities = (await conn.sobject('Opportunity').create([
    { Name: 'Deal 1', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme },
    { Name: 'Deal 2', StageName: 'Negotiation/Review', CloseDate: '2026-10-31', AccountId: globex, Amount: 5000 },
    { Name: 'Deal 3', StageName: 'Qualification', CloseDate: '2026-11-30', AccountId: noBuyer },
  ])) as any[];
  return { acme: acme!, globex: globex!, gone: gone!, noBuyer: noBuyer!, opportunities: opportunities.map((o) => o.id as string) };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sf-driver-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Salesforce sandbox: change driver kinds', () => {
  it('changes nothing, without an error, while the org has nothing to change', async () => {
    const { sandbox, conn } = await start();
    expect(await changes(sandbox, { count: 5 })).toEqual([]);
    for (const kind of ['stageMove', 'newShared', 'draftRequest', 'shareExisting', 'inboundDecision', 'closeDeal']) expect(await changes(sandbox, { count: 2, kinds: [kind] })).toEqual([]);
    // An Account without a buyer id gives newShared nothing to open a deal on.
    await conn.sobject('Account').create({ Name: 'No Buyer' });
    expect(await changes(sandbox, { count: 3, kinds: ['newShared'] })).toEqual([]);
    expect(await dump(sandbox, 'Opportunity')).toEqual([]);
  });

  it('newShared opens shared Opportunities on Accounts with a live buyer id, with the partner of their marketplace', async () => {
    const { sandbox, conn } = await start();
    const org = await seedOrg(conn);
    clockMs += 90_000;
    const made = await changes(sandbox, { count: 6, kinds: ['newShared'] });
    expect(made).toHaveLength(6);
    const stored = await byId(conn, made.map((c) => c.id));
    expect(stored.size).toBe(6);
    for (const change of made) {
      const opportunity = stored.get(change.id);
      expect(change).toMatchObject({ object: 'Opportunity', kind: 'newShared', systemModstamp: stampOf(clockMs) });
      expect(opportunity).toMatchObject({ Cosell_Share__c: true, Private_Offer_Requested__c: false, SystemModstamp: stampOf(clockMs), CreatedDate: stampOf(clockMs) });
      expect([org.acme, org.globex]).toContain(opportunity.AccountId);
      expect(MARKETPLACES).toContain(opportunity.Cosell_Partner__c);
      if (opportunity.AccountId === org.acme) expect(opportunity.Cosell_Partner__c).toBe('Marketplace C');
      expect(STAGES.slice(0, 8)).toContain(opportunity.StageName);
      expect(opportunity.CloseDate > '2026-06-01').toBe(true);
      expect(opportunity.Amount).toBeGreaterThan(0);
      expect(opportunity.Name.length).toBeLessThanOrEqual(120);
    }
    expect((await dump(sandbox, 'Opportunity')).length).toBe(3 + 6);
  });

  it('stageMove moves an existing Opportunity to another standard stage', async () => {
    const { sandbox, conn } = await start();
    const org = await seedOrg(conn);
    for (let round = 0; round < 10; round++) {
      const before = await byId(conn, org.opportunities);
      clockMs += 1_000;
      const [change] = await changes(sandbox, { count: 1, kinds: ['stageMove'] });
      const previous = before.get(change.id).StageName;
      const after = (await byId(conn, [change.id])).get(change.id);
      expect(STAGES).toContain(after.StageName);
      expect(after.StageName).not.toBe(previous);
      expect(change).toEqual({ object: 'Opportunity', id: change.id, kind: 'stageMove', summary: `stage ${previous} -> ${after.StageName}`, systemModstamp: stampOf(clockMs) });
      expect(after).toMatchObject({ SystemModstamp: stampOf(clockMs), LastModifiedDate: stampOf(clockMs) });
      expect(after.CreatedDate).not.toBe(after.SystemModstamp);
    }
  });

  it('draftRequest asks for a private-offer draft with a product of the configured list, once per Opportunity', async () => {
    const { sandbox, conn } = await start({ productIds: ['prod-x1', 'prod-x2'] });
    const org = await seedOrg(conn);
    clockMs += 5_000;
    const made = await changes(sandbox, { count: 10, kinds: ['draftRequest'] });
    // Three Opportunities, each asked once: then there is nothing left to ask for.
    expect(made.map((c) => c.id).sort()).toEqual([...org.opportunities].sort());
    const stored = await byId(conn, org.opportunities);
    for (const change of made) {
      const opportunity = stored.get(change.id);
      expect(opportunity).toMatchObject({ Private_Offer_Requested__c: true, SystemModstamp: stampOf(clockMs) });
      expect(['prod-x1', 'prod-x2']).toContain(opportunity.Commerce_Product_Id__c);
      expect(change).toMatchObject({ kind: 'draftRequest', summary: `private offer draft requested for ${opportunity.Commerce_Product_Id__c}` });
    }
    expect(await changes(sandbox, { count: 1, kinds: ['draftRequest'] })).toEqual([]);
  });

  it('draftRequest names the default products prod-000001 .. prod-000008', async () => {
    const { sandbox, conn } = await start();
    await seedOrg(conn);
    const made = await changes(sandbox, { count: 3, kinds: ['draftRequest'] });
    const stored = await byId(conn, made.map((c) => c.id));
    for (const change of made) expect(stored.get(change.id).Commerce_Product_Id__c).toMatch(/^prod-00000[1-8]$/);
  });

  it('shareExisting shares Opportunities that were not shared, keeping a partner already chosen', async () => {
    const { sandbox, conn } = await start();
    const org = await seedOrg(conn);
    await conn.sobject('Opportunity').update({ Id: org.opportunities[2]!, Cosell_Partner__c: 'Marketplace E' });
    const made = await changes(sandbox, { count: 5, kinds: ['shareExisting'] });
    expect(made.map((c) => c.id).sort()).toEqual([...org.opportunities].sort());
    const stored = await byId(conn, org.opportunities);
    for (const id of org.opportunities) expect(stored.get(id).Cosell_Share__c).toBe(true);
    expect(stored.get(org.opportunities[0]!).Cosell_Partner__c).toBe('Marketplace C'); // Acme's marketplace
    expect(stored.get(org.opportunities[2]!).Cosell_Partner__c).toBe('Marketplace E');
    expect(MARKETPLACES).toContain(stored.get(org.opportunities[1]!).Cosell_Partner__c);
    expect(await changes(sandbox, { count: 1, kinds: ['shareExisting'] })).toEqual([]);
  });

  it('shareExisting leaves an inbound referral\'s Opportunity alone', async () => {
    const { sandbox, conn } = await start();
    const { acme } = await seedOrg(conn);
    const inbound = (await conn.sobject('Opportunity').create({ Name: 'From partner', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Commerce_Referral_Id__c: 'ref-in-1', Cosell_Status__c: 'SUBMITTED' })) as any;
    const made = await changes(sandbox, { count: 10, kinds: ['shareExisting'] });
    expect(made).toHaveLength(3); // the three seeded ones, then nothing left
    expect(made.map((c) => c.id)).not.toContain(inbound.id);
  });

  it('inboundDecision decides each waiting inbound referral once: Accept, or Reject with a seller\'s reason', async () => {
    const { sandbox, conn } = await start({ seed: 3 });
    const { acme, globex } = await seedOrg(conn);
    const inbound = (await conn.sobject('Opportunity').create(
      Array.from({ length: 12 }, (_, i) => ({ Name: `Partner deal ${i}`, StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: i % 2 ? acme : globex, Commerce_Referral_Id__c: `ref-in-${i}`, Cosell_Status__c: 'SUBMITTED' })),
    )) as any[];
    // Not waiting for the seller: already ACCEPTED, already decided, an outbound (shared) one, a closed one.
    const others = (await conn.sobject('Opportunity').create([
      { Name: 'Taken', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Commerce_Referral_Id__c: 'ref-in-x1', Cosell_Status__c: 'ACCEPTED' },
      { Name: 'Decided', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Commerce_Referral_Id__c: 'ref-in-x2', Cosell_Status__c: 'SUBMITTED', Cosell_Decision__c: 'Accept' },
      { Name: 'Ours', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Commerce_Referral_Id__c: 'ref-out-1', Cosell_Status__c: 'SUBMITTED', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C' },
      { Name: 'Over', StageName: 'Closed Lost', CloseDate: '2026-09-30', AccountId: acme, Commerce_Referral_Id__c: 'ref-in-x3', Cosell_Status__c: 'SUBMITTED' },
    ])) as any[];
    clockMs += 60_000;
    const made = await changes(sandbox, { count: 20, kinds: ['inboundDecision'] });
    expect(made.map((c) => c.id).sort()).toEqual(inbound.map((o) => o.id).sort());
    const found = await conn.query<any>(`SELECT Id, Cosell_Decision__c, Cosell_Decision_Reason__c, SystemModstamp FROM Opportunity WHERE Commerce_Referral_Id__c != null`);
    const byIdMap = new Map(found.records.map((r) => [r.Id as string, r]));
    const decisions = inbound.map((o) => byIdMap.get(o.id));
    for (const d of decisions) {
      expect(['Accept', 'Reject']).toContain(d.Cosell_Decision__c);
      if (d.Cosell_Decision__c === 'Accept') expect(d.Cosell_Decision_Reason__c).toBeNull();
      else expect(d.Cosell_Decision_Reason__c).toMatch(/\w.{10,}/);
      expect(d.SystemModstamp).toBe(stampOf(clockMs));
    }
    const accepted = decisions.filter((d) => d.Cosell_Decision__c === 'Accept').length;
    // About four in five accepted: of 12, at least one of each, most of them accepted.
    expect(accepted).toBeGreaterThanOrEqual(7);
    expect(accepted).toBeLessThan(12);
    for (const change of made) expect(change.summary).toMatch(byIdMap.get(change.id).Cosell_Decision__c === 'Accept' ? /^inbound referral accepted$/ : /^inbound referral rejected: /);
    expect(byIdMap.get(others[1].id).Cosell_Decision__c).toBe('Accept');
    for (const other of [others[0], others[2], others[3]]) expect(byIdMap.get(other.id).Cosell_Decision__c).toBeNull();
    expect(await changes(sandbox, { count: 1, kinds: ['inboundDecision'] })).toEqual([]);
  });

  it('closeDeal closes shared open Opportunities won or lost, the partner\'s accepted ones first', async () => {
    const { sandbox, conn } = await start({ seed: 5 });
    const { acme, opportunities } = await seedOrg(conn);
    const shared = (await conn.sobject('Opportunity').create([
      { Name: 'Accepted 1', StageName: 'Qualification', CloseDate: '2026-09-30', AccountId: acme, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C', Cosell_Status__c: 'ACCEPTED' },
      { Name: 'Accepted 2', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C', Cosell_Status__c: 'ACCEPTED' },
      { Name: 'Submitted', StageName: 'Prospecting', CloseDate: '2026-09-30', AccountId: acme, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C', Cosell_Status__c: 'SUBMITTED' },
      { Name: 'Already won', StageName: 'Closed Won', CloseDate: '2026-09-30', AccountId: acme, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C', Cosell_Status__c: 'ACCEPTED' },
    ])) as any[];
    const [first, second] = await changes(sandbox, { count: 2, kinds: ['closeDeal'] });
    expect([first.id, second.id].sort()).toEqual([shared[0].id, shared[1].id].sort());
    const [third] = await changes(sandbox, { count: 1, kinds: ['closeDeal'] });
    expect(third.id).toBe(shared[2].id);
    expect(await changes(sandbox, { count: 1, kinds: ['closeDeal'] })).toEqual([]); // the seeded three are not shared
    const stored = await byId(conn, [...shared.map((o) => o.id), ...opportunities]);
    for (const change of [first, second, third]) {
      expect(['Closed Won', 'Closed Lost']).toContain(stored.get(change.id).StageName);
      expect(change.summary).toMatch(new RegExp(`-> ${stored.get(change.id).StageName}$`));
    }
    expect(stored.get(shared[3].id).StageName).toBe('Closed Won');
    expect(opportunities.map((id) => stored.get(id).StageName)).toEqual(['Prospecting', 'Negotiation/Review', 'Qualification']);
  });

  it('draws a mix of kinds without kinds, and driver changes are not API calls', async () => {
    const { sandbox, conn } = await start();
    await seedOrg(conn);
    await control(sandbox, 'POST', '/calls/reset');
    const made = await changes(sandbox, { count: 40 });
    expect(made).toHaveLength(40);
    const kinds = new Set(made.map((c) => c.kind));
    for (const kind of ['stageMove', 'newShared', 'draftRequest', 'shareExisting']) expect(kinds).toContain(kind);
    // The seeded org has no partner's referral, so nothing to decide; closing a shared deal may be drawn.
    expect([...kinds].filter((kind) => !['stageMove', 'newShared', 'draftRequest', 'shareExisting', 'closeDeal'].includes(kind))).toEqual([]);
    for (const change of made) expect(change.systemModstamp).toMatch(STAMP);
    expect(await callCounts(sandbox)).toEqual({ total: 0 });
  });

  it('gives the same changes for the same seed and org, and starts over on reset', async () => {
    const run = async (seed: number) => {
      const { sandbox, conn } = await start({ seed });
      await seedOrg(conn);
      const first = await changes(sandbox, { count: 15 });
      await control(sandbox, 'POST', '/reset');
      await seedOrg(conn);
      const afterReset = await changes(sandbox, { count: 15 });
      return { first, afterReset };
    };
    const a = await run(7);
    const b = await run(7);
    const c = await run(8);
    expect(b.first).toEqual(a.first);
    expect(c.first.map((x) => x.summary)).not.toEqual(a.first.map((x) => x.summary));
    // Ids never repeat after a reset, so compare what was done, not to which id.
    const what = (list: any[]) => list.map((x) => `${x.kind}: ${x.summary}`);
    expect(what(a.afterReset)).toEqual(what(a.first));
  });

  it('refuses a bad request, naming what was wrong', async () => {
    const { sandbox } = await start();
    const cases: [string, unknown, RegExp][] = [
      ['/changes', { count: -1 }, /count must be a whole number from 0 to 10000/],
      ['/changes', { count: 1, kinds: ['stageMove', 'teleport'] }, /unknown change kind "teleport"; the kinds are stageMove, newShared, draftRequest, shareExisting, inboundDecision, closeDeal/],
      ['/changes', { kinds: [] }, /kinds must be a non-empty list/],
      ['/changes/rate', { changesPerSecond: 'fast' }, /changesPerSecond must be a number from 0 \(stopped\) to 1000/],
      ['/changes/rate', { changesPerSecond: -2 }, /changesPerSecond must be a number/],
    ];
    for (const [path, body, message] of cases) {
      const response = await rawControl(sandbox, 'POST', path, body);
      expect(response.status).toBe(400);
      const [error] = (await response.json()) as { errorCode: string; message: string }[];
      expect(error!.errorCode).toBe('INVALID_BODY');
      expect(error!.message).toMatch(message);
    }
    await expect(startSalesforceSandbox({ productIds: ['prod-1', ''] })).rejects.toThrow(/productIds must be a list of product ids .* "" is not one/);
    await expect(startSalesforceSandbox({ changesPerSecond: -1 })).rejects.toThrow(/changesPerSecond must be a number from 0 \(off\) to 1000, not -1/);
    await expect(startSalesforceSandbox({ seed: 1.5 })).rejects.toThrow(/seed must be a whole number, not 1.5/);
  });
});

describe('Salesforce sandbox: change driver journal and timer', () => {
  it('keeps driver changes in the journal: a sandbox started again on it holds them', async () => {
    const journal = path.join(dir, 'driver.jsonl');
    const { sandbox, conn } = await start({ journalPath: journal });
    await seedOrg(conn);
    clockMs += 30_000;
    const made = [
      ...(await changes(sandbox, { count: 2, kinds: ['newShared'] })),
      ...(await changes(sandbox, { count: 1, kinds: ['stageMove'] })),
      ...(await changes(sandbox, { count: 1, kinds: ['draftRequest'] })),
      ...(await changes(sandbox, { count: 1, kinds: ['shareExisting'] })),
    ];
    expect(made).toHaveLength(5);
    const before = await control(sandbox, 'GET', '/records/Opportunity?includeDeleted=true');
    const copy = path.join(dir, 'driver-copy.jsonl');
    copyFileSync(journal, copy); // what a SIGKILL would leave

    const again = await start({ journalPath: copy });
    const after = await control(again.sandbox, 'GET', '/records/Opportunity?includeDeleted=true');
    expect(after).toEqual(before);
    const stored = await byId(again.conn, made.map((c) => c.id));
    for (const change of made) expect(stored.get(change.id).SystemModstamp).toBe(change.systemModstamp);
    expect([...stored.values()].filter((o) => o.Private_Offer_Requested__c)).toHaveLength(1);
  });

  it('runs on a timer at the configured rate, and the rate control starts and stops it', async () => {
    const { sandbox, conn } = await start({ changesPerSecond: 40, now: () => new Date() });
    expect(await control(sandbox, 'GET', '/changes/rate')).toEqual({ changesPerSecond: 40, running: true, lastError: null });
    await seedOrg(conn);
    const opportunities = async () => (await dump(sandbox, 'Opportunity')).length;
    const stamps = async () => JSON.stringify(await dump(sandbox, 'Opportunity'));
    const deadline = Date.now() + 5_000;
    while ((await opportunities()) <= 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await opportunities()).toBeGreaterThan(3); // newShared ran from the timer

    expect(await control(sandbox, 'POST', '/changes/rate', { changesPerSecond: 0 })).toEqual({ changesPerSecond: 0, running: false, lastError: null });
    const stopped = await stamps();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await stamps()).toBe(stopped);

    expect(await control(sandbox, 'POST', '/changes/rate', { changesPerSecond: 20 })).toEqual({ changesPerSecond: 20, running: true, lastError: null });
    const restartDeadline = Date.now() + 5_000;
    while ((await stamps()) === stopped && Date.now() < restartDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await stamps()).not.toBe(stopped);
    await control(sandbox, 'POST', '/changes/rate', { changesPerSecond: 0 });
  });

  it('is off by default', async () => {
    const { sandbox, conn } = await start();
    expect(await control(sandbox, 'GET', '/changes/rate')).toEqual({ changesPerSecond: 0, running: false, lastError: null });
    await seedOrg(conn);
    const before = JSON.stringify(await dump(sandbox, 'Opportunity'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(JSON.stringify(await dump(sandbox, 'Opportunity'))).toBe(before);
  });
});
