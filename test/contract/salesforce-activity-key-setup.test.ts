// `crm-sync setup` on Salesforce (issue #27 gaps, reading a): the timeline's key on Task is an activity
// custom field, Activity.Commerce_Event_Id__c, External ID only (whether an activity field can be Unique
// is not documented: docs/crm-wire-behaviour.md). One an admin made earlier without External ID is named
// as a problem with where to tick it, and without asking for Unique.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';

describe('Salesforce setup: the timeline key on Activity', () => {
  let sandbox: SalesforceSandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });

  it('names an Activity.Commerce_Event_Id__c made without External ID, where to tick it, and asks no Unique', async () => {
    sandbox = await startSalesforceSandbox({ customMetadata: 'missing' });
    const { conn } = await clientCredentialsConnection(sandbox);
    await conn.tooling.create('CustomField', { FullName: 'Activity.Commerce_Event_Id__c', Metadata: { label: 'Commerce Event Id', type: 'Text', length: 64 } } as never);
    const report = await setUpSalesforce(conn, (await conn.identity()).user_id);
    expect(report.problems).toEqual([
      'Task.Commerce_Event_Id__c is not marked External ID: mark it in Setup (Object Manager, Activity, Fields & Relationships, Commerce Event Id, Edit, External ID), the timeline upserts Tasks by it',
    ]);
  });

  it('makes it External ID and not Unique, as the Task describe then says', async () => {
    sandbox = await startSalesforceSandbox({ customMetadata: 'missing' });
    const { conn } = await clientCredentialsConnection(sandbox);
    const report = await setUpSalesforce(conn, (await conn.identity()).user_id);
    expect(report.problems).toEqual([]);
    expect((await conn.sobject('Task').describe()).fields.find((field) => field.name === 'Commerce_Event_Id__c')).toMatchObject({ externalId: true, unique: false, idLookup: true });
  });
});
