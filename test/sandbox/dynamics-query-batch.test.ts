// Dynamics sandbox queries and $batch through dynamics-web-api unmodified: typed and hostile
// filters, SQL Server GUID order, maxpagesize paging through nextLink, 1000-operation batches with
// continue-on-error, 1001 refused, change sets rolled back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareGuids } from '../../sandbox/dynamics/guid.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let api: ReturnType<typeof clientFor>;
beforeAll(async () => {
  sb = await startDynamicsSandbox({ operationMs: 0, keyActivationMs: 0 }); // server time per operation: dynamics-server-time.test.ts
  api = clientFor(sb);
  await api.createAttribute({ entityKey: "LogicalName='account'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commercebuyerid', MaxLength: 100 } });
  await api.create({ collection: 'EntityDefinitions', key: "LogicalName='account'", navigationProperty: 'Keys', data: { SchemaName: 'ccs_buyerkey', KeyAttributes: ['ccs_commercebuyerid'] } });
});
afterAll(() => sb.stop());

describe('Dynamics sandbox queries', () => {
  it('filters with typed and hostile literals', async () => {
    await api.create({ collection: 'accounts', data: { name: "O'Neil", accountnumber: 'Q-1' } });
    await api.create({ collection: 'accounts', data: { name: 'Plain', accountnumber: 'Q-2' } });
    const oneil = await api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: "name eq 'O''Neil'" });
    expect(oneil.value.map((r: any) => r.name)).toEqual(["O'Neil"]);
    const injection = await api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: `name eq '${"') or (1 eq 1".replace(/'/g, "''")}'` });
    expect(injection.value).toHaveLength(0);
    const since = await api.retrieveMultiple({ collection: 'accounts', select: ['name', 'modifiedon'], filter: 'modifiedon gt 2000-01-01T00:00:00Z and (accountnumber eq \'Q-1\' or accountnumber eq \'Q-2\') and statecode eq 0' });
    expect(since.value).toHaveLength(2);
    expect(since.value[0].modifiedon).toBeInstanceOf(Date);
    const bad = await api.retrieveMultiple({ collection: 'accounts', filter: "name eq 'x' and" }).catch((e) => e);
    expect(bad.status).toBe(400);
    const guidVsString = await api.retrieveMultiple({ collection: 'accounts', filter: "accountid eq 'abc'" }).catch((e) => e);
    expect(guidVsString.status).toBe(400);
    expect((await api.retrieveMultiple({ collection: 'accounts', filter: "startswith(name,'o''n')" })).value).toHaveLength(1);
  });

  it('answers equality filters on ids and text (looked up by value) exactly as a scan would', async () => {
    const made: string[] = [];
    for (const [name, accountnumber] of [['Eq Alpha', 'E-1'], ['EQ ALPHA', 'E-2'], ['Eq Beta', 'E-3'], ['Eq Gamma', null]] as const) {
      made.push(await api.create({ collection: 'accounts', data: { name, ...(accountnumber && { accountnumber }) } }));
    }
    const names = async (filter: string) => (await api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter })).value.map((r: any) => r.name).sort();
    // Text compares without case, as Dataverse's collation does; an id names its one row.
    expect(await names("name eq 'eq alpha' or name eq 'Eq Beta' or name eq 'nobody'")).toEqual(['EQ ALPHA', 'Eq Alpha', 'Eq Beta']);
    expect(await names(`accountid eq ${made[2]} or accountid eq ${made[3]!.toUpperCase()} or accountid eq 00000000-0000-0000-0000-00000000dead`)).toEqual(['Eq Beta', 'Eq Gamma']);
    // The other side of an `and` still applies; an `or` with a term no value lookup covers reads every row.
    expect(await names("(name eq 'Eq Alpha' or name eq 'Eq Beta') and accountnumber ne 'E-2'")).toEqual(['Eq Alpha', 'Eq Beta']);
    expect(await names("accountnumber eq 'E-2' and name eq 'eq alpha'")).toEqual(['EQ ALPHA']);
    expect(await names("name eq 'Eq Beta' or startswith(name,'Eq G')")).toEqual(['Eq Beta', 'Eq Gamma']);
    expect(await names("accountnumber eq 'E-1' or accountnumber eq null")).toEqual(expect.arrayContaining(['Eq Alpha', 'Eq Gamma']));
    expect(await names("not (name eq 'Eq Alpha') and startswith(name,'Eq')")).toEqual(['Eq Beta', 'Eq Gamma']);
  });

  it('orders and compares GUIDs as SQL Server does', async () => {
    const ids = ['00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-010000000000', 'ffffffff-ffff-ffff-ffff-000000000001', '00000000-0000-0000-0100-000000000000', '00000001-0000-0000-0000-000000000000'];
    for (const id of ids) await api.upsert({ collection: 'contacts', key: id, data: { lastname: `g${id}` } });
    const asc = await api.retrieveMultiple({ collection: 'contacts', select: ['contactid'], filter: "startswith(lastname,'g')", orderBy: ['contactid asc'] });
    const got = asc.value.map((r: any) => r.contactid);
    expect(got).toEqual([...ids].sort(compareGuids));
    expect(got).not.toEqual([...ids].sort());
    expect(got[0]).toBe('00000001-0000-0000-0000-000000000000');
    const after = await api.retrieveMultiple({ collection: 'contacts', select: ['contactid'], filter: `startswith(lastname,'g') and contactid gt ${got[1]}`, orderBy: ['contactid'] });
    expect(after.value.map((r: any) => r.contactid)).toEqual(got.slice(2));
  });

  it('pages 12,000 rows in 3 pages through nextLink (maxpagesize 5000)', async () => {
    for (let b = 0; b < 12; b += 1) {
      api.startBatch();
      for (let i = 0; i < 1000; i += 1) api.upsert({ collection: 'accounts', key: `ccs_commercebuyerid='P-${b}-${i}'`, data: { name: `Paged ${b}-${i}` } });
      await api.executeBatch({ inChangeSet: false });
    }
    await control(sb, 'DELETE', '/calls');
    const all = await api.retrieveAll({ collection: 'accounts', select: ['ccs_commercebuyerid'], filter: "startswith(ccs_commercebuyerid,'P-')", maxPageSize: 5000 });
    expect(all.value).toHaveLength(12_000);
    expect(new Set(all.value.map((r: any) => r.ccs_commercebuyerid)).size).toBe(12_000);
    expect((await control(sb, 'GET', '/calls'))['GET accounts']).toBe(3);
  });
});

describe('Dynamics sandbox $batch', () => {
  it('runs 1000 upserts with continue-on-error: one fails, the rest are written', async () => {
    await control(sb, 'DELETE', '/calls');
    api.startBatch();
    for (let i = 0; i < 1000; i += 1) api.upsert({ collection: 'accounts', key: `ccs_commercebuyerid='C-${i}'`, data: { name: i === 500 ? 'x'.repeat(200) : `C ${i}` } });
    const results = await api.executeBatch({ inChangeSet: false, continueOnError: true });
    expect(results).toHaveLength(1000);
    expect(results.filter((r: any) => r instanceof Error || r?.status >= 400)).toHaveLength(1);
    expect((results[500] as any).status).toBe(400);
    expect(typeof results[0]).toBe('string');
    const calls = await control(sb, 'GET', '/calls');
    expect(calls['POST $batch']).toBe(1);
    expect(calls['$batch operations']).toBe(1000);
    const rows = (await control(sb, 'GET', '/records/accounts')).filter((r: any) => String(r.ccs_commercebuyerid).startsWith('C-'));
    expect(rows).toHaveLength(999);
  });

  it('counts a $batch of GET parts only as a batch of reads, and one with any write as not', async () => {
    await control(sb, 'DELETE', '/calls');
    api.startBatch();
    api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: "ccs_commercebuyerid eq 'C-1'" });
    api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: "ccs_commercebuyerid eq 'C-2'" });
    await api.executeBatch({ inChangeSet: false });
    api.startBatch();
    api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: "ccs_commercebuyerid eq 'C-3'" });
    api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='R-1'", data: { name: 'R 1' } });
    await api.executeBatch({ inChangeSet: false, continueOnError: true });
    const calls = await control(sb, 'GET', '/calls');
    expect(calls['POST $batch']).toBe(2);
    expect(calls['$batch of reads only']).toBe(1);
    expect(calls['$batch operations']).toBe(4);
    expect(calls.total).toBe(2);
  });

  it('stops at the first failure without continue-on-error, and refuses 1001 operations', async () => {
    api.startBatch();
    api.create({ collection: 'accounts', data: { name: 'S1' } });
    api.create({ collection: 'accounts', data: { nosuch: 1 } });
    api.create({ collection: 'accounts', data: { name: 'S3' } });
    const results = await api.executeBatch({ inChangeSet: false });
    expect(results).toHaveLength(2);
    api.startBatch();
    for (let i = 0; i < 1001; i += 1) api.create({ collection: 'accounts', data: { name: `T${i}` } });
    const refused = await api.executeBatch({ inChangeSet: false }).catch((e) => e);
    expect(refused.status).toBe(400);
  });

  it('rolls a failed change set back and answers one error for it', async () => {
    const before = (await control(sb, 'GET', '/records/accounts')).length;
    api.startBatch();
    api.create({ collection: 'accounts', data: { name: 'CS1' } });
    api.create({ collection: 'accounts', data: { name: 'x'.repeat(161) } });
    const failed = await api.executeBatch().catch((e) => e);
    const list = Array.isArray(failed) ? failed : [failed];
    expect(list).toHaveLength(1);
    expect((await control(sb, 'GET', '/records/accounts')).length).toBe(before);
    api.startBatch();
    api.create({ collection: 'accounts', data: { name: 'CS-ok-1' } });
    api.create({ collection: 'accounts', data: { name: 'CS-ok-2' } });
    api.retrieveMultiple({ collection: 'accounts', select: ['name'], filter: "startswith(name,'CS-ok')" });
    const ok = await api.executeBatch();
    expect(ok).toHaveLength(3);
    expect(typeof ok[0]).toBe('string');
    expect((ok[2] as any).value).toHaveLength(2);
  });
});
