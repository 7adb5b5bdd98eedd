// Dynamics sandbox records through dynamics-web-api unmodified: create, retrieve, upsert by GUID
// and alternate key with If-Match / If-None-Match, hostile key values, binds, validation errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let api: ReturnType<typeof clientFor>;
beforeAll(async () => {
  sb = await startDynamicsSandbox({ keyActivationMs: 0 });
  api = clientFor(sb);
  await api.createAttribute({ entityKey: "LogicalName='account'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commercebuyerid', MaxLength: 100, RequiredLevel: { Value: 'None' } } });
  await api.create({ collection: 'EntityDefinitions', key: "LogicalName='account'", navigationProperty: 'Keys', data: { SchemaName: 'ccs_commercebuyerid_key', DisplayName: { LocalizedLabels: [{ Label: 'Buyer key', LanguageCode: 1033 }] }, KeyAttributes: ['ccs_commercebuyerid'] } });
});
afterAll(() => sb.stop());

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return error as any;
  }
  throw new Error('expected a failure');
};

describe('Dynamics sandbox records', () => {
  it('creates (204 + OData-EntityId), retrieves with $select, and returns a representation when asked', async () => {
    const id = await api.create({ collection: 'accounts', data: { name: 'Contoso', accountnumber: 'A-1' } });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const row: any = await api.retrieve({ collection: 'accounts', key: id as unknown as string, select: ['name', 'accountnumber', 'createdon'] });
    expect(row.name).toBe('Contoso');
    expect(row.accountid).toBe(id);
    expect(row['@odata.etag']).toMatch(/^W\/"\d+"$/);
    const made: any = await api.create({ collection: 'contacts', data: { firstname: 'Ada', lastname: 'Lovelace' }, returnRepresentation: true, select: ['fullname'] });
    expect(made.fullname).toBe('Ada Lovelace');
  });

  it('upserts by alternate key: create-or-update, If-Match update only, If-None-Match create only', async () => {
    const id = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'Buyer one' } });
    const again = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'Buyer one renamed' } });
    expect(again).toBe(id);
    const rows = await control(sb, 'GET', '/records/accounts');
    expect(rows.filter((r: any) => r.ccs_commercebuyerid === 'B-1')).toHaveLength(1);
    expect(await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='missing'", data: { name: 'x' }, ifmatch: '*' })).toBeNull();
    expect(await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'x' }, ifnonematch: '*' })).toBeNull();
    const created = await api.upsert({ collection: 'accounts', key: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', data: { name: 'By guid' } });
    expect(created).toBe('3f2504e0-4f89-11d3-9a0c-0305e82c3301');
  });

  it('takes quotes in key values and refuses the characters Dataverse cannot take in a URL', async () => {
    const id = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='O''Neil'", data: { name: "O'Neil Ltd" } });
    const row: any = await api.retrieve({ collection: 'accounts', key: "ccs_commercebuyerid='O''Neil'", select: ['ccs_commercebuyerid'] });
    expect(row.ccs_commercebuyerid).toBe("O'Neil");
    expect(row.accountid).toBe(id);
    for (const bad of ['A/1', 'A<1', 'A*1', 'A%1', 'A&1', 'A:1', 'A\\1', 'A+1']) {
      const e = await errorOf(api.upsert({ collection: 'accounts', key: `ccs_commercebuyerid='${bad}'`, data: { name: 'x' } }));
      expect(e.status, bad).toBe(400);
    }
    const notAKey = await errorOf(api.upsert({ collection: 'accounts', key: "name='x'", data: { name: 'x' } }));
    expect(notAKey.status).toBe(400);
  });

  it('binds lookups by GUID and by alternate key, clears them with null, refuses a missing target', async () => {
    const acc = (await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-9'", data: { name: 'Nine' } })) as string;
    const opp = (await api.create({ collection: 'opportunities', data: { name: 'Deal', 'parentaccountid@odata.bind': `/accounts(${acc})`, 'customerid_account@odata.bind': "accounts(ccs_commercebuyerid='B-9')" } })) as string;
    const row: any = await api.retrieve({ collection: 'opportunities', key: opp, select: ['_parentaccountid_value', '_customerid_value'], includeAnnotations: 'Microsoft.Dynamics.CRM.lookuplogicalname' });
    expect(row._parentaccountid_value).toBe(acc);
    expect(row._customerid_value).toBe(acc);
    expect(row['_customerid_value@Microsoft.Dynamics.CRM.lookuplogicalname']).toBe('account');
    const expanded: any = await api.retrieve({ collection: 'opportunities', key: opp, select: ['name'], expand: [{ property: 'parentaccountid', select: ['ccs_commercebuyerid'] }] });
    expect(expanded.parentaccountid.ccs_commercebuyerid).toBe('B-9');
    await api.update({ collection: 'opportunities', key: opp, data: { 'parentaccountid@odata.bind': null } });
    const cleared: any = await api.retrieve({ collection: 'opportunities', key: opp, select: ['_parentaccountid_value'] });
    expect(cleared._parentaccountid_value).toBeNull();
    const missing = await errorOf(api.create({ collection: 'opportunities', data: { name: 'x', 'parentaccountid@odata.bind': '/accounts(00000000-0000-0000-0000-000000000001)' } }));
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('0x80040217');
    const missingKey = await errorOf(api.create({ collection: 'opportunities', data: { name: 'x', 'parentaccountid@odata.bind': "/accounts(ccs_commercebuyerid='nope')" } }));
    expect(missingKey.status).toBe(404);
  });

  it('validates like Dataverse: unknown property, MaxLength, JSON types, duplicate alternate key', async () => {
    const unknown = await errorOf(api.create({ collection: 'accounts', data: { name: 'x', nosuch: 1 } }));
    expect(unknown.status).toBe(400);
    expect(unknown.message).toContain("The property 'nosuch' does not exist on type 'Microsoft.Dynamics.CRM.account'");
    const long = await errorOf(api.create({ collection: 'accounts', data: { name: 'x'.repeat(161) } }));
    expect(long.status).toBe(400);
    expect(long.code).toBe('0x80044331');
    const typed = await errorOf(api.create({ collection: 'opportunities', data: { name: 'x', closeprobability: 'high' } }));
    expect(typed.status).toBe(400);
    await api.create({ collection: 'accounts', data: { name: 'dup', ccs_commercebuyerid: 'DUP' } });
    const dup = await errorOf(api.create({ collection: 'accounts', data: { name: 'dup2', ccs_commercebuyerid: 'DUP' } }));
    expect(dup.code).toBe('0x80060892');
  });

  it('deletes', async () => {
    const id = (await api.create({ collection: 'accounts', data: { name: 'gone' } })) as string;
    await api.deleteRecord({ collection: 'accounts', key: id });
    const e = await errorOf(api.retrieve({ collection: 'accounts', key: id }));
    expect(e.status).toBe(404);
  });
});
