// Salesforce sandbox (issue #27 gaps, reading c): a Completed Task takes updates, as in Salesforce
// (docs/crm-wire-behaviour.md, "Edits to completed tasks": no Task field or call is limited to open
// tasks, and even archived ones take updates). The timeline's upsert by Commerce_Event_Id__c changes a
// completed Task's Subject and Description and leaves its Status as it is when the write leaves it out.
// Kept as a witness: a refusal added here would be one Salesforce does not make.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
  ({ conn } = await clientCredentialsConnection(sandbox));
});
afterAll(() => sandbox.stop());

describe('Salesforce sandbox: a completed Task takes updates', () => {
  it('updates Subject and Description of a Completed Task by its external id and by Id; Status stays Completed', async () => {
    const [account] = await conn.sobject('Account').upsert([{ Name: 'Buyer', Commerce_Buyer_Id__c: 'b-done' }], 'Commerce_Buyer_Id__c', { allOrNone: false });
    const accountId = (account as { id: string }).id;
    const key = "ev-O'Brien \"done\" \\ ü";
    const [made] = await conn.sobject('Task').upsert([{ Commerce_Event_Id__c: key, Subject: 'Offer accepted', Status: 'Completed', WhatId: accountId }], 'Commerce_Event_Id__c', { allOrNone: false });
    expect(made).toMatchObject({ success: true, created: true });
    const taskId = (made as { id: string }).id;

    const [byKey] = await conn.sobject('Task').upsert([{ Commerce_Event_Id__c: key, Subject: 'Offer accepted (corrected)', Description: 'New words' }], 'Commerce_Event_Id__c', { allOrNone: false });
    expect(byKey).toEqual({ id: taskId, success: true, errors: [], created: false });
    const [byId] = await conn.sobject('Task').update([{ Id: taskId, Description: "O'Brien's \"final\" words" }], { allOrNone: false });
    expect(byId).toMatchObject({ id: taskId, success: true });

    const [stored] = (await control(sandbox, 'GET', '/records/Task')) as Record<string, unknown>[];
    expect(stored).toMatchObject({ Id: taskId, Subject: 'Offer accepted (corrected)', Description: "O'Brien's \"final\" words", Status: 'Completed', Commerce_Event_Id__c: key });
  });
});
