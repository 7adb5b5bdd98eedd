// Salesforce sandbox: Bulk API 2.0 ingest as jsforce's bulk2.loadAndWaitForResults drives it — CSV in,
// per-row results out, with the same validation as the REST API.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
const dump = (object: string): Promise<Record<string, any>[]> => control(sandbox, 'GET', `/records/${object}`);
/** Result rows as jsforce parses them: one string per CSV column. */
const rows = (list: unknown[]) => list as Record<string, string>[];
const errorOf = async (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  ({ conn } = await clientCredentialsConnection(sandbox));
  conn.bulk2.pollInterval = 25;
});

describe('Salesforce sandbox: Bulk API 2.0 ingest', () => {
  it('upserts 5,000 records in one job: per-row successes and failures with Salesforce messages', async () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({
      Name: i % 250 === 0 ? 'L'.repeat(256) : `Buyer ${i}`,
      Commerce_Buyer_Id__c: `b-${i}`,
      Marketplace__c: 'Marketplace A',
    }));
    await control(sandbox, 'POST', '/calls/reset');
    const started = Date.now();
    const results = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c', input: records });
    expect(Date.now() - started).toBeLessThan(15_000);

    expect(results.successfulResults).toHaveLength(4980);
    expect(results.failedResults).toHaveLength(20);
    expect(results.unprocessedRecords).toHaveLength(0);
    expect(results.successfulResults[0]).toMatchObject({ sf__Id: expect.stringMatching(/^001\w{15}$/), sf__Created: 'true', Commerce_Buyer_Id__c: 'b-1', Name: 'Buyer 1' });
    expect(results.failedResults[0]).toEqual({
      sf__Id: '',
      sf__Error: `STRING_TOO_LONG:Account Name: data value too large: ${'L'.repeat(256)} (max length=255):Name --`,
      Id: '', // jsforce adds an Id column to upsert rows; an empty cell is ignored
      Name: 'L'.repeat(256),
      Commerce_Buyer_Id__c: 'b-0',
      Marketplace__c: 'Marketplace A',
    });
    expect(rows(results.failedResults).map((r) => r.Commerce_Buyer_Id__c)).toEqual(Array.from({ length: 20 }, (_, k) => `b-${k * 250}`));
    const stored = await dump('Account');
    expect(stored).toHaveLength(4980);
    expect(new Set(results.successfulResults.map((r) => r.sf__Id))).toEqual(new Set(stored.map((a) => a.Id)));

    const counted = await callCounts(sandbox);
    expect(counted).toMatchObject({ 'bulk2-create': 1, 'bulk2-upload': 1, 'bulk2-close': 1, 'bulk2-successful-results': 1, 'bulk2-failed-results': 1, 'bulk2-unprocessed-records': 1 });
    expect(counted['bulk2-poll']).toBeGreaterThanOrEqual(1);
    expect((await control(sandbox, 'GET', '/limits')).used).toBe(counted.total); // every Bulk API call is an API request

    const again = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c', input: records.slice(1, 101) });
    expect(again.successfulResults.map((r) => r.sf__Created)).toEqual(Array(100).fill('false'));
    expect(await dump('Account')).toHaveLength(4980);
  });

  it('reads CSV as Salesforce does: quoting, parents by external id, empty = unchanged, #N/A = null', async () => {
    await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    await conn.sobject('Opportunity').upsert([{ Commerce_Offer_Id__c: 'o-1', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-06-30' }], 'Commerce_Offer_Id__c');
    await conn.sobject('Marketplace_Entitlement__c').upsert([{ Commerce_Entitlement_Id__c: 'e-1', Name: 'Old', Status__c: 'Active', Product_Id__c: 'p-1' }], 'Commerce_Entitlement_Id__c');
    const csv = [
      'Commerce_Entitlement_Id__c,Name,Account__r.Commerce_Buyer_Id__c,Opportunity__r.Commerce_Offer_Id__c,Status__c,Product_Id__c,Commit_Amount__c,Start_Date__c',
      'e-1,"Ent, one",b-1,o-1,,#N/A,1000.5,2026-01-01T00:00:00.500Z',
      'e-2,"Multi\nline ""quoted""",B-1,,Active,p-2,20,',
      'e-3,Orphan,b-404,,,,,',
      'e-4,Bad amount,b-1,,,,lots,',
      '',
    ].join('\n');
    const results = await conn.bulk2.loadAndWaitForResults({ object: 'Marketplace_Entitlement__c', operation: 'upsert', externalIdFieldName: 'Commerce_Entitlement_Id__c', input: csv });
    expect(rows(results.successfulResults).map((r) => [r.Commerce_Entitlement_Id__c, r.sf__Created])).toEqual([['e-1', 'false'], ['e-2', 'true']]);
    expect(rows(results.failedResults).map((r) => [r.Commerce_Entitlement_Id__c, r.sf__Error])).toEqual([
      ['e-3', 'INVALID_FIELD:Foreign key external ID: b-404 not found for field Commerce_Buyer_Id__c in entity Account:--'],
      ['e-4', "INVALID_FIELD:Failed to deserialize field at col 7. Due to, 'lots' is not a valid value for the type xsd:double:--"],
    ]);
    const [account] = await dump('Account');
    const [opportunity] = await dump('Opportunity');
    const byKey = new Map((await dump('Marketplace_Entitlement__c')).map((e) => [e.Commerce_Entitlement_Id__c, e]));
    expect(byKey.get('e-1')).toMatchObject({
      Name: 'Ent, one',
      Status__c: 'Active', // empty cell: unchanged
      Product_Id__c: null, // #N/A: cleared
      Commit_Amount__c: 1000.5,
      Start_Date__c: '2026-01-01T00:00:00.000+0000',
      Account__c: account!.Id,
      Opportunity__c: opportunity!.Id,
    });
    expect(byKey.get('e-2')).toMatchObject({ Name: 'Multi\nline "quoted"', Account__c: account!.Id, Opportunity__c: null, Commit_Amount__c: 20 });
    expect(byKey.has('e-3')).toBe(false);
  });

  it('fails the whole job for a column the object lacks, including the one jsforce makes of a nested object', async () => {
    const unknown = await errorOf(
      conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Commerce_Buyer_Id__c', input: [{ Name: 'A', Commerce_Buyer_Id__c: 'b-1', Foo__c: 'x' }] }),
    );
    expect(unknown.message).toBe('Ingest job failed to complete due to: InvalidBatch : Field name not found : Foo__c');

    // jsforce flattens {Account__r: {Ext: v}} to an `Account__r.Ext` column but keeps an `Account__r`
    // column too (holding JSON), which Salesforce does not know: pass the flat column name instead.
    await conn.sobject('Account').upsert([{ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }], 'Commerce_Buyer_Id__c');
    const nested = await errorOf(
      conn.bulk2.loadAndWaitForResults({
        object: 'Marketplace_Entitlement__c',
        operation: 'upsert',
        externalIdFieldName: 'Commerce_Entitlement_Id__c',
        input: [{ Commerce_Entitlement_Id__c: 'e-1', Name: 'Ent', Account__r: { Commerce_Buyer_Id__c: 'b-1' } }],
      }),
    );
    expect(nested.message).toBe('Ingest job failed to complete due to: InvalidBatch : Field name not found : Account__r');
    const flat = await conn.bulk2.loadAndWaitForResults({
      object: 'Marketplace_Entitlement__c',
      operation: 'upsert',
      externalIdFieldName: 'Commerce_Entitlement_Id__c',
      input: [{ Commerce_Entitlement_Id__c: 'e-1', Name: 'Ent', 'Account__r.Commerce_Buyer_Id__c': 'b-1' }],
    });
    expect(flat.successfulResults).toHaveLength(1);
    expect((await dump('Marketplace_Entitlement__c'))[0]!.Account__c).toMatch(/^001/);
  });

  it('refuses a job whose upsert key is not an external id, and reports job state to jsforce', async () => {
    const refused = await errorOf(conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'upsert', externalIdFieldName: 'Name', input: [{ Name: 'A' }] }));
    expect(refused).toMatchObject({
      errorCode: 'INVALIDJOB',
      message: 'InvalidJob : Field name provided, Name does not match an External ID, Salesforce Id, or indexed field for Account',
    });

    const job = conn.bulk2.createJob({ object: 'Opportunity', operation: 'insert' });
    await job.open();
    expect(job.getInfo()).toMatchObject({ state: 'Open', object: 'Opportunity', operation: 'insert', contentType: 'CSV', lineEnding: 'LF', columnDelimiter: 'COMMA' });
    await job.uploadData('Name,StageName,CloseDate,Amount\nGood,Prospecting,2026-05-01,10\nBad,Foo,2026-05-01,\nNo date,Prospecting,,\n');
    await job.close();
    await job.poll(25, 10_000);
    const info = await job.check();
    expect(info).toMatchObject({ state: 'JobComplete', numberRecordsProcessed: 3, numberRecordsFailed: 2, jobType: 'V2Ingest' });
    const failed = await job.getFailedResults();
    expect(failed.map((r) => r.sf__Error)).toEqual([
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST:Stage: bad value for restricted picklist field: Foo:StageName --',
      'REQUIRED_FIELD_MISSING:Required fields are missing: [CloseDate]:CloseDate --',
    ]);
  });

  it('updates by Id and deletes through ingest jobs', async () => {
    const created = await conn.sobject('Account').create([{ Name: 'One' }, { Name: 'Two' }]);
    const [one, two] = created.map((r) => (r as any).id as string);
    const updated = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'update', input: [{ Id: one, Name: 'Uno' }, { Id: '001Sb00000000zzAAA', Name: 'Ghost' }] });
    expect(updated.successfulResults).toEqual([expect.objectContaining({ sf__Id: one, sf__Created: 'false', Name: 'Uno' })]);
    expect(updated.failedResults[0]!.sf__Error).toBe('INVALID_CROSS_REFERENCE_KEY:invalid cross reference id:--');
    const deleted = await conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'delete', input: [{ Id: two }] });
    expect(deleted.successfulResults).toHaveLength(1);
    expect((await dump('Account')).map((a) => a.Name)).toEqual(['Uno']);
  });
});
