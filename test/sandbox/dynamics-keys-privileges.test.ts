// Issue #22 items 9 and 11 in the Dataverse sandbox, through dynamics-web-api unmodified: an alternate
// key is Pending, InProgress, then Active after its index job (or Failed over duplicate rows, retried
// with ReactivateEntityKey); and a security role missing a privilege refuses what needs it with
// Dataverse's 0x80040220 message while RetrieveUserPrivileges lists what the user holds.
import { afterEach, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from './dynamics-helpers.ts';

let sb: DynamicsSandbox | undefined;
afterEach(async () => {
  await sb?.stop();
  sb = undefined;
});

const keyStatus = async (api: ReturnType<typeof clientFor>) => {
  const keys: any = await api.retrieveMultiple({ collection: 'EntityDefinitions', key: "LogicalName='account'", navigationProperty: 'Keys' } as any);
  return keys.value[0]?.EntityKeyIndexStatus as string;
};
async function until(condition: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const addBuyerColumn = (api: ReturnType<typeof clientFor>) =>
  api.createAttribute({ entityKey: "LogicalName='account'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commercebuyerid', MaxLength: 100 } });
const addBuyerKey = (api: ReturnType<typeof clientFor>) =>
  api.create({ collection: 'EntityDefinitions', key: "LogicalName='account'", navigationProperty: 'Keys', data: { SchemaName: 'ccs_buyerkey', KeyAttributes: ['ccs_commercebuyerid'] } });

describe('alternate keys become Active later', () => {
  it('Pending, then InProgress, then Active; an upsert by the key is refused until it is Active', async () => {
    // The build time runs on the test's clock, so each status is seen however slow the machine is.
    let clock = 0;
    sb = await startDynamicsSandbox({ keyActivationMs: 1_000, keyClock: () => clock });
    const api = clientFor(sb);
    await addBuyerColumn(api);
    await addBuyerKey(api);
    expect(await keyStatus(api)).toBe('Pending');
    const early = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'Early' } }).catch((error) => error);
    expect(early.status).toBe(400);
    expect(early.message).toMatch(/ccs_buyerkey.*not active.*Pending/);
    clock = 499;
    expect(await keyStatus(api)).toBe('Pending');
    clock = 500; // half the build time
    expect(await keyStatus(api)).toBe('InProgress');
    const building = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'Building' } }).catch((error) => error);
    expect(building.message).toMatch(/ccs_buyerkey.*not active.*InProgress/);
    clock = 1_000;
    expect(await keyStatus(api)).toBe('Active');
    const id = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='B-1'", data: { name: 'Now' } });
    expect(typeof id).toBe('string');
  });

  it('Failed when existing rows hold duplicate values; ReactivateEntityKey after removing them makes it Active', async () => {
    sb = await startDynamicsSandbox({ keyActivationMs: 0 });
    const api = clientFor(sb);
    await addBuyerColumn(api);
    await api.create({ collection: 'accounts', data: { name: 'One', ccs_commercebuyerid: 'DUP' } });
    const second = (await api.create({ collection: 'accounts', data: { name: 'Two', ccs_commercebuyerid: 'dup' } })) as unknown as string;
    await addBuyerKey(api); // the definition is made even so
    expect(await keyStatus(api)).toBe('Failed');
    const refused = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='DUP'", data: { name: 'X' } }).catch((error) => error);
    expect(refused.message).toMatch(/not active.*Failed/);
    await api.deleteRecord({ collection: 'accounts', key: second });
    const reactivated: any = await api.callAction({ actionName: 'ReactivateEntityKey', action: { EntityLogicalName: 'account', EntityKeyLogicalName: 'ccs_buyerkey' } });
    expect(reactivated.EntityKeyIndexStatus).toBe('Pending');
    await until(async () => (await keyStatus(api)) === 'Active');
    // Active: it identifies the row, and enforces uniqueness again.
    const id = await api.upsert({ collection: 'accounts', key: "ccs_commercebuyerid='DUP'", data: { name: 'One again' } });
    expect((await control(sb, 'GET', '/records/accounts')).find((row: any) => row.accountid === id).name).toBe('One again');
  });

  it('the build time is a start option and a control', async () => {
    sb = await startDynamicsSandbox();
    expect((await control(sb, 'GET', '/keys')).activationMs).toBeGreaterThan(0);
    await control(sb, 'POST', '/keys', { activationMs: 0 });
    const api = clientFor(sb);
    await addBuyerColumn(api);
    await addBuyerKey(api);
    expect(await keyStatus(api)).toBe('Active');
  });
});

describe('a security role missing a privilege', () => {
  it('refuses the operation with 0x80040220 naming the privilege; RetrieveUserPrivileges lists what the user holds', async () => {
    sb = await startDynamicsSandbox({ keyActivationMs: 0, missingPrivileges: ['prvWriteAccount'] });
    const api = clientFor(sb);
    const id = (await api.create({ collection: 'accounts', data: { name: 'Made' } })) as unknown as string; // Create is held
    const refused = await api.update({ collection: 'accounts', key: id, data: { name: 'Changed' } }).catch((error) => error);
    expect(refused.status).toBe(403);
    expect(refused.code).toBe('0x80040220');
    expect(refused.message).toMatch(/^Principal user \(Id=[0-9a-f-]{36}, type=8, roleCount=1, privilegeCount=\d+, accessMode=0\), is missing prvWriteAccount privilege \(Id=[0-9a-f-]{36}\) on OTC=1 for entity 'account'/);

    const who: any = await api.callFunction({ name: 'WhoAmI' });
    const held: any = await api.callFunction({ collection: 'systemusers', key: who.UserId, name: 'Microsoft.Dynamics.CRM.RetrieveUserPrivileges' } as any);
    const names = held.RolePrivileges.map((p: any) => p.PrivilegeName);
    expect(names).toContain('prvReadAccount');
    expect(names).toContain('prvCreateOpportunity');
    expect(names).not.toContain('prvWriteAccount');
    expect(held.RolePrivileges[0]).toMatchObject({ Depth: 'Global', BusinessUnitId: who.BusinessUnitId });

    // Taken back: the write goes through.
    await control(sb, 'POST', '/privileges', { missing: ['prvAppendToAccount'] });
    await api.update({ collection: 'accounts', key: id, data: { name: 'Changed' } });
    const bind = await api.create({ collection: 'opportunities', data: { name: 'Deal', 'parentaccountid@odata.bind': `/accounts(${id})` } }).catch((error) => error);
    expect(bind.message).toContain('is missing prvAppendToAccount privilege');
  });
});
