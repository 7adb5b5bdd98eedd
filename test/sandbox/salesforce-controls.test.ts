// Salesforce sandbox: the test controls added for the connector's robustness tests, seen through
// jsforce and plain HTTP: token refusals, Bulk API 2.0 job processing (paused, failed as a whole) and a
// field's uniqueness (Setup's "Unique" checkbox), and that /reset clears them.
import jsforce from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const token = (body: Record<string, string>) =>
  fetch(`${sandbox.loginUrl}/services/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
const rawControl = (method: string, path: string, body: unknown) =>
  fetch(`${sandbox.instanceUrl}/_sandbox${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(() => control(sandbox, 'POST', '/reset'));

describe('Salesforce sandbox: token refusals', () => {
  it('answers every token request with the OAuth error set, whatever the grant, until cleared', async () => {
    await control(sandbox, 'POST', '/oauth/refusal', { error: 'inactive_user' });
    const refused = await token({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'inactive_user', error_description: 'user is inactive' });
    const oauth2 = new jsforce.OAuth2({ loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
    await expect(oauth2.refreshToken(sandbox.refreshToken)).rejects.toMatchObject({ name: 'inactive_user', message: 'user is inactive' });

    await control(sandbox, 'POST', '/oauth/refusal', { error: 'unauthorized_client', error_description: 'no client credentials user enabled', status: 401 });
    const unauthorized = await token({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({ error: 'unauthorized_client', error_description: 'no client credentials user enabled' });

    await control(sandbox, 'DELETE', '/oauth/refusal');
    await expect(clientCredentialsConnection(sandbox)).resolves.toBeDefined();
    const bad = await rawControl('POST', '/oauth/refusal', { error: 'Not A Code' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual([{ message: 'error must be an OAuth error code such as inactive_user', errorCode: 'INVALID_BODY' }]);
  });
});

describe('Salesforce sandbox: Bulk API 2.0 job processing', () => {
  const csv = 'Name,Commerce_Buyer_Id__c\nA,b-1\nB,b-2\n';

  it('holds closed jobs in UploadComplete while paused and processes them when resumed', async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    expect(await control(sandbox, 'POST', '/jobs/processing', { paused: true })).toEqual({ paused: true, held: 0 });
    const job = conn.bulk2.createJob({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c' });
    await job.open();
    await job.uploadData(csv);
    await job.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await job.check()).toMatchObject({ state: 'UploadComplete', numberRecordsProcessed: 0 });
    expect(await control(sandbox, 'GET', '/jobs/processing')).toEqual({ paused: true, held: 1 });

    await control(sandbox, 'POST', '/jobs/processing', { paused: false });
    await job.poll(20, 5000);
    expect(await job.check()).toMatchObject({ state: 'JobComplete', numberRecordsProcessed: 2 });
    expect(await control(sandbox, 'GET', '/records/Account')).toHaveLength(2);
  });

  it('fails the next job as a whole with the message given, once: every row unprocessed, nothing saved', async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    await control(sandbox, 'POST', '/jobs/processing', { failNext: 'InvalidBatch : The org is locked for maintenance' });
    const failing = conn.bulk2.createJob({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c' });
    await failing.open();
    await failing.uploadData(csv);
    await failing.close();
    const error = await errorOf(failing.poll(20, 5000));
    expect(error.message).toBe('Ingest job failed to complete due to: InvalidBatch : The org is locked for maintenance');
    expect(await failing.check()).toMatchObject({ state: 'Failed', errorMessage: 'InvalidBatch : The org is locked for maintenance', numberRecordsProcessed: 0 });
    expect(await failing.getUnprocessedRecords()).toEqual([
      { Name: 'A', Commerce_Buyer_Id__c: 'b-1' },
      { Name: 'B', Commerce_Buyer_Id__c: 'b-2' },
    ]);
    expect(await control(sandbox, 'GET', '/records/Account')).toEqual([]);

    const next = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c', input: csv, pollInterval: 20, pollTimeout: 5000 });
    expect(next.successfulResults).toHaveLength(2);
  });

  it('refuses a control body it cannot read', async () => {
    const bad = await rawControl('POST', '/jobs/processing', { paused: 'yes' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual([{ message: 'paused must be true or false', errorCode: 'INVALID_BODY' }]);
  });
});

describe("Salesforce sandbox: a field's uniqueness", () => {
  const describedUnique = async (conn: jsforce.Connection) => (await conn.sobject('Account').describe()).fields.find((f) => f.name === 'Commerce_Buyer_Id__c')!.unique;

  it('reports the external id fields unique, and an external id made non-unique as it then behaves', async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    expect(await describedUnique(conn)).toBe(true);
    await conn.sobject('Account').create({ Name: 'First', Commerce_Buyer_Id__c: 'shared' });
    await expect(conn.sobject('Account').create({ Name: 'Second', Commerce_Buyer_Id__c: 'SHARED' })).rejects.toMatchObject({ errorCode: 'DUPLICATE_VALUE' });

    expect(await control(sandbox, 'POST', '/fields/Account/Commerce_Buyer_Id__c', { unique: false })).toEqual({ object: 'Account', field: 'Commerce_Buyer_Id__c', externalId: true, unique: false });
    expect(await describedUnique(conn)).toBe(false);
    await expect(conn.sobject('Account').create({ Name: 'Second', Commerce_Buyer_Id__c: 'SHARED' })).resolves.toMatchObject({ success: true });
    // Two records hold the value now: an upsert by it cannot pick one.
    const [upserted] = (await conn.sobject('Account').upsert([{ Name: 'Third', Commerce_Buyer_Id__c: 'shared' }], 'Commerce_Buyer_Id__c')) as any[];
    expect(upserted.success).toBe(false);
    expect(upserted.errors[0]).toMatchObject({ statusCode: 'DUPLICATE_EXTERNAL_ID', fields: ['Commerce_Buyer_Id__c'] });
    expect(upserted.errors[0].message).toMatch(/^Account: more than one record found for external id field: \[001\w{15}, 001\w{15}\]$/);

    // Setup refuses to make it unique again while records share a value.
    const refused = await rawControl('POST', '/fields/Account/Commerce_Buyer_Id__c', { unique: true });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }[])[0]!.message).toMatch(/cannot be made unique: records 001\w{15} and 001\w{15} share the value SHARED/);

    await control(sandbox, 'POST', '/reset');
    expect(await describedUnique((await clientCredentialsConnection(sandbox)).conn)).toBe(true);
  });

  it('names an unknown object or field', async () => {
    const noField = await rawControl('POST', '/fields/Account/Nope__c', { unique: false });
    expect(noField.status).toBe(404);
    expect(await noField.json()).toEqual([{ message: 'no field Nope__c on Account in the sandbox schema', errorCode: 'NOT_FOUND' }]);
    expect((await rawControl('POST', '/fields/Lead/Email', { unique: false })).status).toBe(404);
  });
});
