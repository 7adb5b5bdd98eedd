// Salesforce sandbox: SOQL through jsforce's query, queryMore and autoFetch — paging with the batch
// size header, hostile string literals, date-time filters on SystemModstamp, and Salesforce's errors.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
let clockMs = Date.parse('2026-03-01T09:00:00Z');

/** SOQL string literal escaping: backslash first, then quotes. */
const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const names = (records: Record<string, unknown>[]) => records.map((r) => r.Name);

async function seedAccounts(count: number) {
  const records = Array.from({ length: count }, (_, i) => ({ Name: `Buyer ${String(i).padStart(3, '0')}`, Commerce_Buyer_Id__c: `b-${i}` }));
  for (let i = 0; i < records.length; i += 200) {
    const results = await conn.sobject('Account').upsert(records.slice(i, i + 200), 'Commerce_Buyer_Id__c');
    expect(results.every((r) => r.success)).toBe(true);
  }
}

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ now: () => new Date(clockMs) });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  ({ conn } = await clientCredentialsConnection(sandbox));
});

describe('Salesforce sandbox: query paging', () => {
  it('pages 450 records by the batch size header: autoFetch makes 1 query + 2 queryMore calls', async () => {
    await seedAccounts(450);
    await control(sandbox, 'POST', '/calls/reset');
    const headers = { 'Sforce-Query-Options': 'batchSize=200' };
    const result = await conn.query('SELECT Id, Name FROM Account ORDER BY Name', { autoFetch: true, maxFetch: 10_000, headers });
    expect(result.totalSize).toBe(450);
    expect(result.records).toHaveLength(450);
    expect(result.records[449]).toMatchObject({ attributes: { type: 'Account', url: expect.stringMatching(/^\/services\/data\/v62\.0\/sobjects\/Account\/001/) }, Name: 'Buyer 449' });
    expect(await callCounts(sandbox)).toEqual({ query: 1, 'query-more': 2, total: 3 });
  });

  it('hands out nextRecordsUrl locators that queryMore follows, and clamps the batch size to 200..2000', async () => {
    await seedAccounts(450);
    const headers = { 'Sforce-Query-Options': 'batchSize=50' }; // below the minimum: 200
    const first = await conn.query('SELECT Name FROM Account', { headers });
    expect(first).toMatchObject({ totalSize: 450, done: false });
    expect(first.records).toHaveLength(200);
    // jsforce keeps the locator (the last segment) and rebuilds the URL on its own base.
    expect(first.nextRecordsUrl).toMatch(new RegExp(`^${sandbox.instanceUrl}/services/data/v62\\.0/query/01g[A-Za-z0-9]{15}-200$`));
    const raw = await fetch(`${sandbox.instanceUrl}/services/data/v62.0/query?q=${encodeURIComponent('SELECT Id FROM Account')}`, {
      headers: { authorization: `Bearer ${conn.accessToken}`, 'sforce-query-options': 'batchSize=300' },
    }).then((r) => r.json() as Promise<any>);
    expect(raw).toMatchObject({ totalSize: 450, done: false, nextRecordsUrl: expect.stringMatching(/^\/services\/data\/v62\.0\/query\/01g[A-Za-z0-9]{15}-300$/) });
    expect(raw.records).toHaveLength(300);
    // queryMore's options type wants every field.
    const more = { headers, autoFetch: false, maxFetch: 10_000, scanAll: false, responseTarget: 'QueryResult' as const };
    const second = await conn.queryMore(first.nextRecordsUrl!, more);
    expect(second.records).toHaveLength(200);
    const third = await conn.queryMore(second.nextRecordsUrl!, more);
    expect(third).toMatchObject({ done: true, totalSize: 450 });
    expect(third.nextRecordsUrl).toBeUndefined();
    expect(names([...first.records, ...second.records, ...third.records]).sort()).toEqual(Array.from({ length: 450 }, (_, i) => `Buyer ${String(i).padStart(3, '0')}`));
    // The cursor is gone once read to the end.
    await expect(conn.queryMore(second.nextRecordsUrl!)).rejects.toMatchObject({ errorCode: 'INVALID_QUERY_LOCATOR' });

    const whole = await conn.query('SELECT Name FROM Account', { headers: { 'Sforce-Query-Options': 'batchSize=5000' } });
    expect(whole.records).toHaveLength(450);
    expect(whole.done).toBe(true);
  });

  it('takes each locator once ("Use each queryLocator value only one time"): a used one, or one never handed out, is INVALID_QUERY_LOCATOR', async () => {
    await seedAccounts(650);
    const more = { headers: { 'Sforce-Query-Options': 'batchSize=200' }, autoFetch: false, maxFetch: 10_000, scanAll: false, responseTarget: 'QueryResult' as const };
    const first = await conn.query('SELECT Name FROM Account', more);
    const second = await conn.queryMore(first.nextRecordsUrl!, more);
    expect(second.records).toHaveLength(200);
    // The locator just used, again (an activity retried after its page was read): spent.
    await expect(conn.queryMore(first.nextRecordsUrl!, more)).rejects.toMatchObject({ errorCode: 'INVALID_QUERY_LOCATOR' });
    // An offset of the same cursor never handed out.
    await expect(conn.queryMore(second.nextRecordsUrl!.replace(/-400$/, '-300'), more)).rejects.toMatchObject({ errorCode: 'INVALID_QUERY_LOCATOR' });
    // The newest locator still reads on.
    const third = await conn.queryMore(second.nextRecordsUrl!, more);
    expect(third.records).toHaveLength(200);
  });

  it('counts with COUNT(), slices with LIMIT and OFFSET, and sorts with nulls first or last', async () => {
    await seedAccounts(5);
    await conn.sobject('Account').update([{ Id: (await conn.query<{ Id: string }>("SELECT Id FROM Account WHERE Name = 'Buyer 001'")).records[0]!.Id, BillingCountry: 'DE' }]);
    const count = await conn.query("SELECT COUNT() FROM Account WHERE Name LIKE 'Buyer%'");
    expect(count).toMatchObject({ totalSize: 5, done: true, records: [] });
    expect(names((await conn.query('SELECT Name FROM Account ORDER BY Name DESC LIMIT 2 OFFSET 1')).records)).toEqual(['Buyer 003', 'Buyer 002']);
    expect(names((await conn.query('SELECT Name FROM Account ORDER BY BillingCountry, Name LIMIT 2')).records)).toEqual(['Buyer 000', 'Buyer 002']);
    expect(names((await conn.query('SELECT Name FROM Account ORDER BY BillingCountry NULLS LAST, Name LIMIT 1')).records)).toEqual(['Buyer 001']);
    expect(names((await conn.query('SELECT Name FROM Account ORDER BY BillingCountry DESC, Name LIMIT 1')).records)).toEqual(['Buyer 001']);
  });
});

describe('Salesforce sandbox: SOQL conditions', () => {
  const hostile = [
    "O'Brien",
    'back\\slash',
    "a' OR Name != '",
    "x' LIMIT 1 --",
    'SELECT Id FROM Account WHERE Name != null',
    '100%_off',
    'say "hi"',
    "trailing\\' ) OR (Name LIKE '%",
    'line\nbreak\ttab',
  ];

  it('keeps hostile values inside string literals: each matches exactly its own record', async () => {
    const results = await conn.sobject('Account').upsert(hostile.map((Name, i) => ({ Name, Commerce_Buyer_Id__c: `h-${i}` })), 'Commerce_Buyer_Id__c');
    expect(results.every((r) => r.success)).toBe(true);
    await conn.sobject('Account').upsert([{ Name: 'Innocent', Commerce_Buyer_Id__c: 'h-x' }], 'Commerce_Buyer_Id__c');
    for (const [i, name] of hostile.entries()) {
      const found = await conn.query(`SELECT Name, Commerce_Buyer_Id__c FROM Account WHERE Name = ${literal(name)}`);
      expect(found.records, name).toEqual([expect.objectContaining({ Name: name, Commerce_Buyer_Id__c: `h-${i}` })]);
      const asKey = await conn.query(`SELECT Name FROM Account WHERE Commerce_Buyer_Id__c = ${literal(name)}`);
      expect(asKey.totalSize, name).toBe(0);
    }
  });

  it('refuses literals that are not properly escaped instead of reading them as syntax', async () => {
    await conn.sobject('Account').upsert([{ Name: "O'Brien", Commerce_Buyer_Id__c: 'h-0' }], 'Commerce_Buyer_Id__c');
    const quote = await errorOf(conn.query("SELECT Id FROM Account WHERE Name = 'O'Brien"));
    expect(quote.errorCode).toBe('MALFORMED_QUERY');
    expect(quote.message).toMatch(/ERROR at Row:1:Column:40\nunexpected token: 'Brien'/);
    const injected = await errorOf(conn.query("SELECT Id FROM Account WHERE Name = 'x' OR Name != 'y' AND Name = 'z'"));
    expect(injected.errorCode).toBe('MALFORMED_QUERY');
    const backslash = await errorOf(conn.query("SELECT Id FROM Account WHERE Name = 'back\\slash'"));
    expect(backslash).toMatchObject({ errorCode: 'MALFORMED_QUERY', message: expect.stringContaining("Illegal character sequence '\\s' in string literal") });
    const open = await errorOf(conn.query("SELECT Id FROM Account WHERE Name = 'unterminated"));
    expect(open.errorCode).toBe('MALFORMED_QUERY');
  });

  it('matches text case-insensitively, with LIKE wildcards and their escapes', async () => {
    await conn.sobject('Account').upsert(
      [
        { Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' },
        { Name: '100% off', Commerce_Buyer_Id__c: 'b-2' },
        { Name: '100 x off', Commerce_Buyer_Id__c: 'b-3' },
        { Name: 'snake_case', Commerce_Buyer_Id__c: 'b-4' },
        { Name: 'snakeXcase', Commerce_Buyer_Id__c: 'b-5' },
      ],
      'Commerce_Buyer_Id__c',
    );
    const q = async (where: string) => names((await conn.query(`SELECT Name FROM Account WHERE ${where} ORDER BY Name`)).records);
    expect(await q("Name = 'ACME'")).toEqual(['Acme']);
    expect(await q("Name LIKE 'ac%'")).toEqual(['Acme']);
    expect(await q("Name LIKE '100%'")).toEqual(['100 x off', '100% off']);
    expect(await q("Name LIKE '100\\%%'")).toEqual(['100% off']);
    expect(await q("Name LIKE 'snake_case'")).toEqual(['snake_case', 'snakeXcase']);
    expect(await q("Name LIKE 'snake\\_case'")).toEqual(['snake_case']);
    expect(await q("Commerce_Buyer_Id__c IN ('b-1', 'B-4', 'b-9')")).toEqual(['Acme', 'snake_case']);
    expect(await q("Commerce_Buyer_Id__c NOT IN ('b-1', 'b-2', 'b-3')")).toEqual(['snake_case', 'snakeXcase']);
    expect(await q("NOT Name LIKE 'snake%'")).toEqual(['100 x off', '100% off', 'Acme']);
    expect(await q("(Name = 'Acme' OR Name = 'snake_case') AND Commerce_Buyer_Id__c != 'b-1'")).toEqual(['snake_case']);
    expect(await q("Name != 'Acme' AND (NOT (Name LIKE '100%' OR Name LIKE 'snake%'))")).toEqual([]);
    // SOQL's != keeps records whose value is null.
    expect(await q("BillingCountry != 'DE'")).toHaveLength(5);
    expect(await q('BillingCountry = null')).toHaveLength(5);
  });

  it('answers Salesforce errors for malformed queries, unknown fields and objects, and mistyped literals', async () => {
    const cases: [string, string, RegExp][] = [
      ["SELECT Id FROM Account WHERE Name = 'a' AND Name = 'b' OR Name = 'c'", 'MALFORMED_QUERY', /unexpected token: 'OR'/],
      ['SELECT Id, Nope__c FROM Account', 'INVALID_FIELD', /No such column 'Nope__c' on entity 'Account'/],
      ['SELECT Id FROM Lead', 'INVALID_TYPE', /sObject type 'Lead' is not supported/],
      ['SELECT Id FROM Contact WHERE Owner.Name = null', 'INVALID_FIELD', /Didn't understand relationship 'Owner'/],
      ['SELECT Id FROM Account WHERE SystemModstamp > 2026-03-01T00:00:00', 'MALFORMED_QUERY', /zone/],
      ["SELECT Id FROM Account WHERE SystemModstamp > '2026-03-01T00:00:00Z'", 'MALFORMED_QUERY', /must be of type dateTime and should not be enclosed in quotes/],
      ['SELECT Id FROM Account WHERE SystemModstamp > 2026-03-01', 'MALFORMED_QUERY', /must be of type dateTime/],
      ['SELECT Id FROM Account WHERE Name = 5', 'MALFORMED_QUERY', /must be of type string and should be enclosed in quotes/],
      ["SELECT Id FROM Opportunity WHERE Amount > '5'", 'MALFORMED_QUERY', /must be of type double and should not be enclosed in quotes/],
      ["SELECT Id FROM Account WHERE Description = 'x'", 'INVALID_FIELD', /field 'Description' can not be filtered/],
      ['SELECT Id, Name, name FROM Account', 'MALFORMED_QUERY', /duplicate field selected/],
      ['SELECT Id FROM Account LIMIT 5 OFFSET 2001', 'NUMBER_OUTSIDE_VALID_RANGE', /Maximum SOQL offset allowed is 2000/],
      ['SELECT Id FROM Account WHERE', 'MALFORMED_QUERY', /unexpected token: <EOF>/],
      ['SELECT Id FROM Account; DELETE', 'MALFORMED_QUERY', /no viable alternative at character ';'/],
    ];
    for (const [soql, errorCode, message] of cases) {
      const error = await errorOf(conn.query(soql));
      expect(error, soql).toMatchObject({ errorCode });
      expect(error.message, soql).toMatch(message);
    }
  });
});

describe('Salesforce sandbox: incremental reads', () => {
  it('filters SystemModstamp with date-time literals (Z, offsets, milliseconds) in whole seconds', async () => {
    clockMs = Date.parse('2026-03-01T10:00:00.700Z');
    await conn.sobject('Account').upsert([{ Name: 'First', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    clockMs = Date.parse('2026-03-01T10:00:10.000Z');
    await conn.sobject('Account').upsert([{ Name: 'Second', Commerce_Buyer_Id__c: 'b-2' }], 'Commerce_Buyer_Id__c');
    clockMs = Date.parse('2026-03-01T10:00:20.300Z');
    await conn.sobject('Account').upsert([{ Name: 'First again', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');

    const since = async (literalText: string, op = '>=') =>
      (await conn.query(`SELECT Name, SystemModstamp FROM Account WHERE SystemModstamp ${op} ${literalText} ORDER BY SystemModstamp, Id`)).records;
    expect(await since('2026-03-01T10:00:10Z')).toEqual([
      expect.objectContaining({ Name: 'Second', SystemModstamp: '2026-03-01T10:00:10.000+0000' }),
      expect.objectContaining({ Name: 'First again', SystemModstamp: '2026-03-01T10:00:20.000+0000' }),
    ]);
    expect(names(await since('2026-03-01T10:00:10Z', '>'))).toEqual(['First again']);
    expect(names(await since('2026-03-01T11:00:20+01:00'))).toEqual(['First again']);
    expect(names(await since('2026-03-01T10:00:20.000Z'))).toEqual(['First again']);
    // Milliseconds are not stored: a write at 10:00:20.300 is at 10:00:20.
    expect(names(await since('2026-03-01T10:00:20.001Z'))).toEqual([]);
    const created = await conn.query('SELECT Name FROM Account WHERE CreatedDate < 2026-03-01T10:00:01Z AND LastModifiedDate > 2026-03-01T10:00:01Z');
    expect(names(created.records)).toEqual(['First again']);
  });

  it('filters dates with date literals and follows parent relationships in SELECT and WHERE', async () => {
    await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    await conn.sobject('Opportunity').upsert(
      [
        { Commerce_Offer_Id__c: 'o-1', Name: 'Early', StageName: 'Prospecting', CloseDate: '2026-01-15', Account: { Commerce_Buyer_Id__c: 'b-1' } },
        { Commerce_Offer_Id__c: 'o-2', Name: 'Late', StageName: 'Prospecting', CloseDate: '2026-09-15', Amount: 99.5 },
      ],
      'Commerce_Offer_Id__c',
    );
    const late = await conn.query('SELECT Name FROM Opportunity WHERE CloseDate > 2026-06-01 AND Amount >= 99.5');
    expect(names(late.records)).toEqual(['Late']);
    const joined = await conn.query("SELECT Name, Account.Name, Account.Commerce_Buyer_Id__c FROM Opportunity WHERE Account.Commerce_Buyer_Id__c = 'b-1' OR Name = 'Late' ORDER BY Name");
    expect(joined.records).toEqual([
      {
        attributes: expect.objectContaining({ type: 'Opportunity' }),
        Name: 'Early',
        Account: { attributes: expect.objectContaining({ type: 'Account' }), Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' },
      },
      { attributes: expect.objectContaining({ type: 'Opportunity' }), Name: 'Late', Account: null },
    ]);
  });

  it('leaves deleted records to queryAll', async () => {
    const [created] = await conn.sobject('Account').create([{ Name: 'Gone' }, { Name: 'Kept' }]);
    await conn.sobject('Account').destroy((created as any).id);
    expect(names((await conn.query('SELECT Name FROM Account')).records)).toEqual(['Kept']);
    const all = await conn.query('SELECT Name, IsDeleted FROM Account ORDER BY Name', { scanAll: true });
    expect(all.records.map((r: any) => [r.Name, r.IsDeleted])).toEqual([['Gone', true], ['Kept', false]]);
    expect(await callCounts(sandbox)).toMatchObject({ 'query-all': 1 });
  });
});
