// The Salesforce sandbox's formula field Days_To_End__c (issue #25 section 2): created by `crm-sync setup`
// through the Tooling API, computed whenever it is read from End_Date__c and the org's clock, never
// written, granted Read but never Edit; a formula the sandbox cannot evaluate is refused at creation.
import type { Connection } from 'jsforce';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';

describe('Salesforce sandbox: the Days_To_End__c formula field', () => {
  let sandbox: SalesforceSandbox | undefined;
  let now = new Date('2026-03-01T12:00:00Z');
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });
  const start = async (customMetadata?: 'missing'): Promise<{ conn: Connection; userId: string }> => {
    sandbox = await startSalesforceSandbox({ now: () => now, ...(customMetadata && { customMetadata }) });
    const { conn } = await clientCredentialsConnection(sandbox);
    return { conn, userId: (await conn.identity()).user_id };
  };

  it('setup creates it as a read-only formula, granted Read only; it counts whole days to End_Date__c as the clock moves', async () => {
    const { conn, userId } = await start('missing');
    const report = await setUpSalesforce(conn, userId);
    expect(report.problems).toEqual([]);
    const grant = await conn.query<{ PermissionsRead: boolean; PermissionsEdit: boolean }>("SELECT PermissionsRead, PermissionsEdit FROM FieldPermissions WHERE Field = 'Marketplace_Entitlement__c.Days_To_End__c'");
    expect(grant.records.map((r) => [r.PermissionsRead, r.PermissionsEdit])).toEqual([[true, false]]);
    const described = (await conn.sobject('Marketplace_Entitlement__c').describe()).fields.find((f) => f.name === 'Days_To_End__c')!;
    expect(described).toMatchObject({ type: 'double', calculated: true, calculatedFormula: 'IF(ISBLANK(End_Date__c), NULL, FLOOR(End_Date__c - NOW()))', createable: false, updateable: false });

    await conn.sobject('Marketplace_Entitlement__c').create([
      { Name: 'Ends in ten days and a half', Commerce_Entitlement_Id__c: 'ent-1', End_Date__c: '2026-03-12T00:00:00Z' },
      { Name: 'Open-ended', Commerce_Entitlement_Id__c: 'ent-2' },
      { Name: 'Ended yesterday', Commerce_Entitlement_Id__c: 'ent-3', End_Date__c: '2026-02-28T12:00:00Z' },
    ]);
    const read = async () => Object.fromEntries((await conn.query<{ Commerce_Entitlement_Id__c: string; Days_To_End__c: number | null }>('SELECT Commerce_Entitlement_Id__c, Days_To_End__c FROM Marketplace_Entitlement__c')).records.map((r) => [r.Commerce_Entitlement_Id__c, r.Days_To_End__c]));
    expect(await read()).toEqual({ 'ent-1': 10, 'ent-2': null, 'ent-3': -1 });
    now = new Date('2026-03-05T12:00:00Z');
    expect(await read()).toEqual({ 'ent-1': 6, 'ent-2': null, 'ent-3': -5 });
  });

  it('a write to it is refused; a formula the sandbox does not know is refused at creation', async () => {
    const { conn } = await start();
    await expect(conn.sobject('Marketplace_Entitlement__c').create({ Name: 'x', Commerce_Entitlement_Id__c: 'ent-9', Days_To_End__c: 5 })).rejects.toMatchObject({
      errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
      message: expect.stringContaining('Unable to create/update fields: Days_To_End__c.'),
    });
    await expect(
      conn.tooling.create('CustomField', { FullName: 'Marketplace_Entitlement__c.Weeks_To_End__c', Metadata: { label: 'Weeks To End', type: 'Number', precision: 18, scale: 0, formula: 'FLOOR((End_Date__c - NOW()) / 7)' } } as never),
    ).rejects.toThrow(/evaluates only the formulas the project declares/);
  });
});
