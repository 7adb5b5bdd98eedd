// Dynamics sandbox access, limits, metadata, controls and journal: token success and AADSTS errors,
// expiry -> 401, service protection 429 with Retry-After, creating a table, columns, a key and a
// lookup and writing through them, the change driver, and a journal surviving a SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DynamicsWebApi } from 'dynamics-web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor, fetchToken } from './dynamics-helpers.ts';

let clock = new Date('2026-03-01T10:00:00Z');
let sb: DynamicsSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startDynamicsSandbox({ now: () => clock, seed: 5, keyActivationMs: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'dynamics-sandbox-'));
});
afterAll(async () => {
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Dynamics sandbox tokens', () => {
  it('issues v2.0 client-credentials tokens and answers each AADSTS error', async () => {
    const ok = await fetchToken(sb);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599 });
    const codes = async (form: Record<string, string>, url = sb.tokenUrl) => {
      const body = new URLSearchParams({ client_id: sb.clientId, client_secret: sb.clientSecret, grant_type: 'client_credentials', scope: `${sb.orgUrl.replace(/\/$/, '')}/.default`, ...form });
      const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      const j: any = await r.json();
      return [r.status, j.error_codes[0], j.error_description.slice(0, 15)];
    };
    expect(await codes({}, `${sb.authority}/00000000-0000-0000-0000-000000000000/oauth2/v2.0/token`)).toEqual([400, 90002, 'AADSTS90002: Te']);
    expect(await codes({ client_id: 'nobody' })).toEqual([400, 700016, 'AADSTS700016: A']);
    expect(await codes({ client_secret: 'wrong' })).toEqual([401, 7000215, 'AADSTS7000215: ']);
    expect(await codes({ scope: 'https://other.crm.dynamics.com/.default' })).toEqual([400, 500011, 'AADSTS500011: T']);
    expect(await codes({ scope: 'user.read' })).toEqual([400, 70011, 'AADSTS70011: Th']);
    expect(await codes({ grant_type: 'password' })).toEqual([400, 70003, 'AADSTS70003: Th']);
    await control(sb, 'POST', '/clients/revoke');
    expect((await fetchToken(sb)).body.error_codes).toEqual([7000215]);
    await control(sb, 'POST', '/clients/restore');
    expect((await fetchToken(sb)).status).toBe(200);
  });

  it('refuses the Web API without a valid token (401 + WWW-Authenticate); tokens expire', async () => {
    const none = await fetch(`${sb.orgUrl}api/data/v9.2/accounts`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer authorization_uri=/);
    const { access_token } = (await fetchToken(sb)).body;
    const api = new DynamicsWebApi({ serverUrl: sb.orgUrl, dataApi: { version: '9.2' }, onTokenRefresh: async () => access_token });
    await api.retrieveMultiple({ collection: 'accounts' });
    clock = new Date(clock.getTime() + 3600_000);
    expect((await api.retrieveMultiple({ collection: 'accounts' }).catch((e) => e)).status).toBe(401);
    const fresh = (await fetchToken(sb)).body.access_token;
    const api2 = new DynamicsWebApi({ serverUrl: sb.orgUrl, dataApi: { version: '9.2' }, onTokenRefresh: async () => fresh });
    await api2.retrieveMultiple({ collection: 'accounts' });
    await control(sb, 'POST', '/tokens/expire');
    expect((await api2.retrieveMultiple({ collection: 'accounts' }).catch((e) => e)).status).toBe(401);
  });
});

describe('Dynamics sandbox service protection and faults', () => {
  it('answers 429 with Retry-After and Dataverse codes over the request limit', async () => {
    const limited = await startDynamicsSandbox({ requestsPer300s: 3 });
    try {
      const api = clientFor(limited);
      for (let i = 0; i < 3; i += 1) await api.retrieveMultiple({ collection: 'accounts' });
      const e = await api.retrieveMultiple({ collection: 'accounts' }).catch((x) => x);
      expect(e.status).toBe(429);
      expect(e.code).toBe('0x80072322');
      expect(Number(e.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });

  it('injects seeded 500s and 429s and counts them', async () => {
    const api = clientFor(sb);
    await control(sb, 'POST', '/faults', { endpoint: 'GET contacts', rate500: 0.5, rate429: 0.5, seed: 3 });
    const errors = await Promise.all(Array.from({ length: 6 }, () => api.retrieveMultiple({ collection: 'contacts' }).catch((e) => e.status)));
    expect(errors.every((s) => s === 500 || s === 429)).toBe(true);
    const faults = await control(sb, 'GET', '/faults');
    expect((faults.injected['500'] ?? 0) + (faults.injected['429'] ?? 0)).toBe(6);
    await control(sb, 'DELETE', '/faults');
  });
});

describe('Dynamics sandbox metadata', () => {
  it('reads standard tables and creates a table, columns, a key and a lookup, then writes through them', async () => {
    const api = clientFor(sb);
    const account: any = await api.retrieveEntity({ key: "LogicalName='account'", select: ['LogicalName', 'EntitySetName', 'PrimaryIdAttribute'], expand: [{ property: 'Attributes' }, { property: 'Keys' }] as any });
    expect(account.EntitySetName).toBe('accounts');
    expect(account.Attributes.find((a: any) => a.LogicalName === 'name').MaxLength).toBe(160);
    const opp: any = await api.retrieveEntity({ key: "LogicalName='opportunity'", expand: [{ property: 'ManyToOneRelationships' }] as any });
    expect(opp.ManyToOneRelationships.find((r: any) => r.ReferencingAttribute === 'parentaccountid').ReferencedEntity).toBe('account');
    const unknown = await api.retrieveEntity({ key: "LogicalName='ccs_nothing'" }).catch((e) => e);
    expect(unknown.status).toBe(404);
    await api.createEntity({ data: { '@odata.type': 'Microsoft.Dynamics.CRM.EntityMetadata', SchemaName: 'ccs_entitlement', DisplayName: { LocalizedLabels: [{ Label: 'Entitlement', LanguageCode: 1033 }] }, OwnershipType: 'UserOwned', HasActivities: false, Attributes: [{ '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', AttributeType: 'String', SchemaName: 'ccs_name', IsPrimaryName: true, MaxLength: 200 }] } });
    const dup = await api.createEntity({ data: { SchemaName: 'ccs_entitlement', Attributes: [{ SchemaName: 'ccs_name', AttributeType: 'String', IsPrimaryName: true }] } }).catch((e) => e);
    expect(dup.status).toBe(400);
    await api.createAttribute({ entityKey: "LogicalName='ccs_entitlement'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_entitlementid_ext', MaxLength: 64 } });
    await api.createAttribute({ entityKey: "LogicalName='ccs_entitlement'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.DateTimeAttributeMetadata', SchemaName: 'ccs_ends', Format: 'DateOnly', DateTimeBehavior: { Value: 'DateOnly' } } });
    await api.createAttribute({ entityKey: "LogicalName='ccs_entitlement'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.MoneyAttributeMetadata', SchemaName: 'ccs_amount' } });
    await api.create({ collection: 'EntityDefinitions', key: "LogicalName='ccs_entitlement'", navigationProperty: 'Keys', data: { SchemaName: 'ccs_ext_key', KeyAttributes: ['ccs_entitlementid_ext'] } });
    await api.createRelationship({ data: { '@odata.type': 'Microsoft.Dynamics.CRM.OneToManyRelationshipMetadata', SchemaName: 'ccs_account_entitlement', ReferencedEntity: 'account', ReferencingEntity: 'ccs_entitlement', Lookup: { AttributeType: 'Lookup', SchemaName: 'ccs_accountid' } } });
    const keys: any = await api.retrieveMultiple({ collection: 'EntityDefinitions', key: "LogicalName='ccs_entitlement'", navigationProperty: 'Keys' } as any);
    expect(keys.value[0]).toMatchObject({ KeyAttributes: ['ccs_entitlementid_ext'], EntityKeyIndexStatus: 'Active' });
    const filtered = await api.retrieveMultiple({ collection: 'EntityDefinitions', filter: "LogicalName eq 'ccs_entitlement'", select: ['EntitySetName'] });
    expect(filtered.value[0].EntitySetName).toBe('ccs_entitlements');
    const acc = await api.create({ collection: 'accounts', data: { name: 'Owner' } });
    const id = await api.upsert({ collection: 'ccs_entitlements', key: "ccs_entitlementid_ext='E-1'", data: { ccs_name: 'Ent 1', ccs_ends: '2027-01-31', ccs_amount: 12.5, 'ccs_accountid@odata.bind': `/accounts(${acc})` } });
    const row: any = await api.retrieve({ collection: 'ccs_entitlements', key: id as unknown as string, select: ['ccs_ends', '_ccs_accountid_value', 'ccs_amount'] });
    expect(row).toMatchObject({ ccs_ends: '2027-01-31', _ccs_accountid_value: acc, ccs_amount: 12.5 });
  });
});

describe('Dynamics sandbox change driver', () => {
  it('edits opportunities as salespeople do, moving modifiedon and versionnumber', async () => {
    const api = clientFor(sb);
    const opp = (await api.create({ collection: 'opportunities', data: { name: 'Driven' } })) as unknown as string;
    const before = (await control(sb, 'GET', '/records/opportunities')).find((r: any) => r.opportunityid === opp);
    clock = new Date(clock.getTime() + 5000);
    const one = await control(sb, 'POST', `/opportunities/${opp}`, { fields: { stepname: '3-Propose' } });
    expect(one.changed[0]).toMatchObject({ opportunityid: opp, fields: { stepname: '3-Propose' } });
    const after = (await control(sb, 'GET', '/records/opportunities')).find((r: any) => r.opportunityid === opp);
    expect(after.stepname).toBe('3-Propose');
    expect(after.modifiedon > before.modifiedon).toBe(true);
    expect(after.versionnumber).toBeGreaterThan(before.versionnumber);
    const many = await control(sb, 'POST', '/opportunities/change', { count: 1, seed: 7 });
    expect(many.changed).toHaveLength(1);
  });
});

const INDEX = path.resolve(import.meta.dirname, '../../sandbox/dynamics/index.ts');
describe('Dynamics sandbox journal', () => {
  it('keeps every acknowledged write (rows and metadata) across a SIGKILL', async () => {
    const journalPath = path.join(dir, 'killed.jsonl');
    const script = `const { startDynamicsSandbox } = await import(${JSON.stringify(INDEX)});
const sb = await startDynamicsSandbox({ journalPath: ${JSON.stringify(journalPath)}, seed: 9, keyActivationMs: 0 });
console.log(JSON.stringify(sb));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const first = await new Promise<DynamicsSandbox>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
      child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code}`)));
    });
    const api = clientFor(first);
    await api.createAttribute({ entityKey: "LogicalName='account'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commercebuyerid', MaxLength: 100 } });
    await api.create({ collection: 'EntityDefinitions', key: "LogicalName='account'", navigationProperty: 'Keys', data: { SchemaName: 'ccs_buyerkey', KeyAttributes: ['ccs_commercebuyerid'] } });
    api.startBatch();
    for (let i = 0; i < 50; i += 1) api.upsert({ collection: 'accounts', key: `ccs_commercebuyerid='J-${i}'`, data: { name: `J ${i}` } });
    const ids = await api.executeBatch();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const again = await startDynamicsSandbox({ journalPath, seed: 9 });
    try {
      expect(again.clientSecret).toBe(first.clientSecret);
      const api2 = clientFor(again);
      const id = await api2.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='J-7'", data: { name: 'J seven' } });
      expect(id).toBe(ids[7]);
      expect((await control(again, 'GET', '/records/accounts')).length).toBe(50);
    } finally {
      await again.stop();
    }
  });
});
