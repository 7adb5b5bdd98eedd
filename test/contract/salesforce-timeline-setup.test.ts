// `crm-sync setup` and the timeline on Salesforce (issue #27 section 1), against an org without the
// project's metadata: the activity key is made on Activity and seen on Task; the project's objects are
// made with Allow Activities, so a Task can name their records by WhatId; an object made before without
// it is named as a problem with what to tick in Setup.
import type { Connection } from 'jsforce';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';

describe('Salesforce setup for the timeline', () => {
  let sandbox: SalesforceSandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });
  const start = async (): Promise<{ conn: Connection; userId: string }> => {
    sandbox = await startSalesforceSandbox({ customMetadata: 'missing' });
    const { conn } = await clientCredentialsConnection(sandbox);
    return { conn, userId: (await conn.identity()).user_id };
  };
  const whatIdTargets = async (conn: Connection) => (await conn.sobject('Task').describe()).fields.find((field) => field.name === 'WhatId')!.referenceTo;

  it('makes Activity.Commerce_Event_Id__c (an external id on Task) and the objects with Allow Activities', async () => {
    const { conn, userId } = await start();
    expect(await whatIdTargets(conn)).toEqual(['Account', 'Opportunity']);
    const report = await setUpSalesforce(conn, userId);
    expect(report.problems).toEqual([]);
    expect(report.created).toContain('Task.Commerce_Event_Id__c (Text(64), external id)');
    expect((await conn.sobject('Task').describe()).fields.find((field) => field.name === 'Commerce_Event_Id__c')).toMatchObject({ externalId: true, type: 'string', length: 64 });
    expect(await whatIdTargets(conn)).toEqual(['Account', 'Opportunity', 'Marketplace_Entitlement__c', 'Cosell_Referral__c']);
  });

  it('refuses a custom field made on Task itself, as Salesforce makes activity fields on Activity', async () => {
    const { conn } = await start();
    await expect(conn.tooling.create('CustomField', { FullName: 'Task.Other__c', Metadata: { label: 'Other', type: 'Text', length: 10 } } as never)).rejects.toThrow(/custom fields of activities are created on Activity/);
  });

  it('names an object made earlier without Allow Activities, and what to tick', async () => {
    const { conn, userId } = await start();
    await conn.tooling.create('CustomObject', { FullName: 'Cosell_Referral__c', Metadata: { label: 'Cosell Referral', pluralLabel: 'Cosell Referrals', nameField: { type: 'Text', label: 'Cosell Referral Name' }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' } } as never);
    const report = await setUpSalesforce(conn, userId);
    // A note: a connection without the timeline is set up fine (an older org's setup must not start failing).
    expect(report.problems).toEqual([]);
    expect(report.notes).toContain('Cosell_Referral__c does not allow activities, so the timeline cannot put Tasks on its records: tick Allow Activities in Setup (Object Manager, Cosell_Referral__c, Edit) before choosing the timeline');
  });
});
