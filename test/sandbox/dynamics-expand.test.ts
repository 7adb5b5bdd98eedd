// Nested query options inside $expand (issue #22 item 10): OData v4 puts an expanded property's own
// options in parentheses, separated by ';' (`$expand=Attributes($select=LogicalName,AttributeType)`),
// and Dataverse takes them on metadata and records alike. Raw URLs and dynamics-web-api, unmodified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { clientFor, fetchToken } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
let token: string;
beforeAll(async () => {
  sb = await startDynamicsSandbox();
  token = (await fetchToken(sb)).body.access_token;
});
afterAll(() => sb.stop());

async function get(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sb.orgUrl}api/data/v9.2/${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  return { status: response.status, body: await response.json() };
}

describe('nested options in $expand', () => {
  it('metadata: $select inside Attributes(...) keeps only those properties (and MetadataId, @odata.type)', async () => {
    const { status, body } = await get("EntityDefinitions(LogicalName='account')?$select=LogicalName&$expand=Attributes($select=LogicalName,AttributeType),Keys");
    expect(status).toBe(200);
    expect(body.LogicalName).toBe('account');
    expect(body.Keys).toEqual([]);
    const name = body.Attributes.find((a: any) => a.LogicalName === 'name');
    expect(name).toMatchObject({ LogicalName: 'name', AttributeType: 'String' });
    for (const attribute of body.Attributes) {
      expect(Object.keys(attribute).filter((k) => !['@odata.type', 'MetadataId'].includes(k)).sort()).toEqual(['AttributeType', 'LogicalName']);
    }
  });

  it('metadata: several options separated by ";" ($select;$filter) and URL-encoded', async () => {
    const raw = await get("EntityDefinitions(LogicalName='opportunity')?$select=LogicalName&$expand=Attributes($select=LogicalName;$filter=LogicalName eq 'stepname'),ManyToOneRelationships($select=ReferencingAttribute,ReferencedEntity)");
    expect(raw.status).toBe(200);
    expect(raw.body.Attributes.map((a: any) => a.LogicalName)).toEqual(['stepname']);
    expect(raw.body.ManyToOneRelationships.map((r: any) => `${r.ReferencingAttribute}->${r.ReferencedEntity}`)).toContain('parentaccountid->account');
    const encoded = await get(`EntityDefinitions(LogicalName='opportunity')?$expand=${encodeURIComponent("Attributes($select=LogicalName;$filter=LogicalName eq 'name')")}`);
    expect(encoded.status).toBe(200);
    expect(encoded.body.Attributes.map((a: any) => a.LogicalName)).toEqual(['name']);
  });

  it('metadata: a property only a derived attribute type has cannot be selected on Attributes (cast needed)', async () => {
    const { status, body } = await get("EntityDefinitions(LogicalName='account')?$expand=Attributes($select=LogicalName,MaxLength)");
    expect(status).toBe(400);
    expect(body.error.message).toContain("'MaxLength'");
  });

  it('metadata through dynamics-web-api: expand with a nested select', async () => {
    const api = clientFor(sb);
    const account: any = await api.retrieveEntity({ key: "LogicalName='account'", select: ['LogicalName', 'EntitySetName'], expand: [{ property: 'Attributes', select: ['LogicalName', 'AttributeType'] }, { property: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] }] });
    expect(account.EntitySetName).toBe('accounts');
    expect(account.Attributes.find((a: any) => a.LogicalName === 'emailaddress1')).toMatchObject({ AttributeType: 'String' });
    expect(account.Attributes.find((a: any) => a.LogicalName === 'emailaddress1').MaxLength).toBeUndefined();
  });

  it('records: $expand=parentaccountid($select=name,accountnumber) with a comma inside the parentheses', async () => {
    const api = clientFor(sb);
    const account = await api.create({ collection: 'accounts', data: { name: 'Expand Co', accountnumber: 'X-9', telephone1: '555' } });
    const opportunity = await api.create({ collection: 'opportunities', data: { name: 'Deal', 'parentaccountid@odata.bind': `/accounts(${account})` } });
    const { status, body } = await get(`opportunities(${opportunity})?$select=name&$expand=parentaccountid($select=name,accountnumber)`);
    expect(status).toBe(200);
    expect(body.parentaccountid).toMatchObject({ name: 'Expand Co', accountnumber: 'X-9' });
    expect(body.parentaccountid.telephone1).toBeUndefined();
    const listed = await api.retrieveMultiple({ collection: 'opportunities', select: ['name'], expand: [{ property: 'parentaccountid', select: ['name', 'accountnumber'] }] });
    expect(listed.value[0].parentaccountid).toMatchObject({ name: 'Expand Co', accountnumber: 'X-9' });
  });
});
