// Salesforce sandbox with a journal (journalPath): a sandbox started again on the journal of one that
// was stopped without any flush holds the same records, ids and system fields, and never issues an id
// again. The journal is copied while the first sandbox still runs: what is in the file by then is all
// a SIGKILL would leave (the crash test in sandboxes-crash.test.ts really kills a process).
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idCounter } from '../../sandbox/salesforce/ids.ts';
import { SALESFORCE_SANDBOX_SCHEMA, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let dir: string;
const started: SalesforceSandbox[] = [];
let clockMs = Date.parse('2026-03-01T09:00:00.000Z');
const now = () => new Date(clockMs);

const start = async (journalPath: string) => {
  const sandbox = await startSalesforceSandbox({ journalPath, now });
  started.push(sandbox);
  return sandbox;
};
const OBJECTS = Object.keys(SALESFORCE_SANDBOX_SCHEMA);
/** Every stored record of every object, deleted ones too. */
async function everything(sandbox: SalesforceSandbox): Promise<Record<string, Record<string, unknown>[]>> {
  const all: Record<string, Record<string, unknown>[]> = {};
  for (const object of OBJECTS) all[object] = await control(sandbox, 'GET', `/records/${object}?includeDeleted=true`);
  return all;
}
const idsOf = (all: Record<string, Record<string, unknown>[]>) => Object.values(all).flat().map((r) => String(r.Id));

/** A few records of every kind of write: REST create, collection upserts with parents, updates, a delete. */
async function writeSome(sandbox: SalesforceSandbox) {
  const { conn } = await clientCredentialsConnection(sandbox);
  const created = await conn.sobject('Account').create({ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1', Marketplace__c: 'Marketplace A' });
  const accounts = await conn.sobject('Account').upsert(
    [{ Name: 'Globex', Commerce_Buyer_Id__c: 'b-2' }, { Name: 'Initech', Commerce_Buyer_Id__c: 'b-3' }, { Name: 'Gone', Commerce_Buyer_Id__c: 'b-4' }],
    'Commerce_Buyer_Id__c',
    { allOrNone: false },
  );
  clockMs += 61_000;
  await conn.sobject('Contact').upsert([{ LastName: 'Doe', Email: 'doe@example.com', Commerce_Contact_Id__c: 'c-1', Account: { Commerce_Buyer_Id__c: 'b-2' } } as any], 'Commerce_Contact_Id__c', { allOrNone: false });
  await conn.sobject('Opportunity').upsert([{ Name: 'Deal', StageName: 'Prospecting', CloseDate: '2026-06-30', Amount: 1234.565, Commerce_Offer_Id__c: 'o-1', Account: { Commerce_Buyer_Id__c: 'B-1' } } as any], 'Commerce_Offer_Id__c', { allOrNone: false });
  clockMs += 5_000;
  await conn.sobject('Account').update({ Id: (created as any).id, Website: 'https://acme.example.com', Description: null });
  await conn.sobject('Account').destroy((accounts[2] as any).id);
  return conn;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sf-journal-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Salesforce sandbox: persistence (journalPath)', () => {
  it('comes back with the same records, ids and system fields, and never issues an id again', async () => {
    const journal = path.join(dir, 'same.jsonl');
    const first = await start(journal);
    await writeSome(first);
    const before = await everything(first);
    expect(before.Account).toHaveLength(4);
    expect(before.Account!.find((a) => a.Name === 'Gone')).toMatchObject({ IsDeleted: true });
    const copy = path.join(dir, 'same-copy.jsonl');
    copyFileSync(journal, copy); // what the file holds while the first sandbox still runs

    clockMs += 60_000;
    const second = await start(copy);
    expect(await everything(second)).toEqual(before);

    // Clients log in again (sessions are not kept) and see the same data through the API.
    const { conn } = await clientCredentialsConnection(second);
    const found = await conn.query<{ Name: string; Account: { Name: string } }>("SELECT Name, Account.Name FROM Opportunity WHERE Commerce_Offer_Id__c = 'o-1'");
    expect(found.records[0]).toMatchObject({ Name: 'Deal', Account: { Name: 'Acme' } });
    const [again] = await conn.sobject('Account').upsert([{ Name: 'Globex Corp', Commerce_Buyer_Id__c: 'B-2' }], 'Commerce_Buyer_Id__c', { allOrNone: false });
    expect(again).toMatchObject({ success: true, created: false, id: before.Account!.find((a) => a.Name === 'Globex')!.Id });

    // A new record gets an id after every id issued before the restart.
    const fresh = (await conn.sobject('Account').create({ Name: 'Umbrella' })) as any;
    expect(idsOf(before)).not.toContain(fresh.id);
    expect(idCounter(fresh.id)).toBeGreaterThan(Math.max(...idsOf(before).map(idCounter)));
  });

  it('keeps ids unique across a reset and a restart, and keeps writing after the restart', async () => {
    const journal = path.join(dir, 'reset.jsonl');
    const first = await start(journal);
    await writeSome(first);
    const issued = idsOf(await everything(first));
    await control(first, 'POST', '/reset');
    await first.stop();

    const second = await start(journal);
    expect(Object.values(await everything(second)).flat()).toEqual([]);
    const { conn } = await clientCredentialsConnection(second);
    const created = (await conn.sobject('Account').create({ Name: 'After reset' })) as any;
    expect(issued).not.toContain(created.id);
    expect(idCounter(created.id)).toBeGreaterThan(Math.max(...issued.map(idCounter)));
    const after = await everything(second);
    await second.stop();

    // The journal was compacted at the second start (the records of before the reset are gone from it,
    // their highest id counter is in its first line) and appended to since.
    const third = await start(journal);
    expect(await everything(third)).toEqual(after);
    const { conn: conn3 } = await clientCredentialsConnection(third);
    const latest = (await conn3.sobject('Account').create({ Name: 'After restart' })) as any;
    expect(idCounter(latest.id)).toBeGreaterThan(idCounter(created.id));
  });

  it('ignores a torn last line (a kill in the middle of a write) and refuses a damaged file', async () => {
    const journal = path.join(dir, 'torn.jsonl');
    const first = await start(journal);
    await writeSome(first);
    const before = await everything(first);
    await first.stop();
    appendFileSync(journal, '{"op":"insert","object":"Account","record":{"Id":"001Sb00000000');

    const second = await start(journal);
    expect(await everything(second)).toEqual(before);
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    await second.stop();

    const damaged = path.join(dir, 'damaged.jsonl');
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines.splice(2, 0, '{"op":"upd');
    writeFileSync(damaged, lines.join('\n'));
    await expect(startSalesforceSandbox({ journalPath: damaged })).rejects.toThrow(/damaged\.jsonl is damaged at line 3/);
    const foreign = path.join(dir, 'foreign.jsonl');
    writeFileSync(foreign, '{"journal":"commerce-sandbox","version":1}\n');
    await expect(startSalesforceSandbox({ journalPath: foreign })).rejects.toThrow(/is not a Salesforce sandbox journal/);
  });

  it('without journalPath keeps nothing on disk, as before', async () => {
    const sandbox = await startSalesforceSandbox();
    started.push(sandbox);
    await writeSome(sandbox);
    const other = await startSalesforceSandbox();
    started.push(other);
    expect(Object.values(await everything(other)).flat()).toEqual([]);
  });
});
