// Salesforce sandbox: row locks when asked. Saving a child locks its parent; a save that cannot get
// the lock fails that row with UNABLE_TO_LOCK_ROW naming the parent, through sObject Collections and
// Bulk API 2.0 alike, driven by jsforce itself.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
type Save = { id?: string; success: boolean; errors: { statusCode: string; message: string; fields: string[] }[] };

const accounts = (count: number) => Array.from({ length: count }, (_, i) => ({ Name: `Buyer ${i}`, Commerce_Buyer_Id__c: `b-${i}` }));
/** Contact i under Account i % parents: a parent's children spread over the whole list. */
const contacts = (count: number, parents: number, prefix = 'c') =>
  Array.from({ length: count }, (_, i) => ({ LastName: `Person ${i}`, Commerce_Contact_Id__c: `${prefix}-${i}`, Account: { Commerce_Buyer_Id__c: `b-${i % parents}` } }));
const upsertContacts = (records: object[]) => conn.sobject('Contact').upsert(records as never, 'Commerce_Contact_Id__c', { allOrNone: false }) as unknown as Promise<Save[]>;
const lockMessage = /^unable to obtain exclusive access to this record or 1 records: 001\w{15}$/;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
});
afterAll(() => sandbox?.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  ({ conn } = await clientCredentialsConnection(sandbox));
  conn.bulk2.pollInterval = 25;
  await conn.sobject('Account').upsert(accounts(20) as never, 'Commerce_Buyer_Id__c', { allOrNone: false });
});

describe('Salesforce sandbox: row locks', () => {
  it('locks nothing unless asked', async () => {
    expect(await control(sandbox, 'GET', '/row-locks')).toMatchObject({ failureRate: 0, contention: false, failed: 0 });
    const saved = await upsertContacts(contacts(200, 20));
    expect(saved.every((result) => result.success)).toBe(true);
  });

  it('fails a seeded share of child rows with UNABLE_TO_LOCK_ROW naming the parent, saving nothing of them', async () => {
    const idOf = new Map<string, string>((await control(sandbox, 'GET', '/records/Account')).map((a: any) => [a.Commerce_Buyer_Id__c, a.Id]));
    await control(sandbox, 'POST', '/row-locks', { failureRate: 0.2, seed: 7 });
    const records = contacts(200, 20);
    const saved = await upsertContacts(records);
    const failed = saved.flatMap((result, i) => (result.success ? [] : [i]));
    // 200 draws at 0.2: 40 on average; 15 and 70 are more than four standard deviations away.
    expect(failed.length).toBeGreaterThan(15);
    expect(failed.length).toBeLessThan(70);
    for (const i of failed) {
      expect(saved[i]!.errors).toEqual([{ statusCode: 'UNABLE_TO_LOCK_ROW', message: expect.stringMatching(lockMessage), fields: [] }]);
      expect(saved[i]!.errors[0]!.message.endsWith(idOf.get(`b-${i % 20}`)!)).toBe(true);
    }
    const stored = await control(sandbox, 'GET', '/records/Contact');
    expect(stored).toHaveLength(200 - failed.length);
    expect((await control(sandbox, 'GET', '/row-locks')).failed).toBe(failed.length);

    // Parents themselves lock nothing; the same seed fails the same rows again.
    const parents = (await conn.sobject('Account').upsert(accounts(20) as never, 'Commerce_Buyer_Id__c', { allOrNone: false })) as unknown as Save[];
    expect(parents.every((result) => result.success)).toBe(true);
    await control(sandbox, 'POST', '/reset');
    await conn.sobject('Account').upsert(accounts(20) as never, 'Commerce_Buyer_Id__c', { allOrNone: false });
    await control(sandbox, 'POST', '/row-locks', { failureRate: 0.2, seed: 7 });
    const again = await upsertContacts(records);
    expect(again.flatMap((result, i) => (result.success ? [] : [i]))).toEqual(failed);
  });

  it('with contention, a save touching a parent another save in flight holds fails those rows', async () => {
    await control(sandbox, 'POST', '/row-locks', { contention: true, holdMs: 400 });
    // Two calls under the same Account at once: the one that arrives second finds it held.
    const [one, two] = await Promise.all([upsertContacts(contacts(5, 1, 'x')), upsertContacts(contacts(5, 1, 'y'))]);
    const outcomes = [one, two].map((saved) => saved.map((result) => result.success));
    expect(outcomes).toContainEqual([true, true, true, true, true]);
    expect(outcomes).toContainEqual([false, false, false, false, false]);
    const refused = (outcomes[0]![0] ? two : one)[0]!;
    expect(refused.errors[0]).toMatchObject({ statusCode: 'UNABLE_TO_LOCK_ROW', message: expect.stringMatching(lockMessage) });
    // Once the holder answered, the lock is free again; Accounts under no parent never wait.
    const later = await upsertContacts(contacts(5, 1, 'z'));
    expect(later.every((result) => result.success)).toBe(true);
    expect(await control(sandbox, 'GET', '/row-locks')).toMatchObject({ failed: 5, failedContended: 5, held: 0 });
  });

  it("with contention, Bulk API 2.0's parallel batches fail rows whose parent another batch holds; rows sorted by parent fail only at batch edges", async () => {
    await control(sandbox, 'POST', '/row-locks', { contention: true, batchSize: 200 });
    const interleaved = contacts(600, 20);
    const first = await conn.bulk2.loadAndWaitForResults({ object: 'Contact', operation: 'upsert', externalIdFieldName: 'Commerce_Contact_Id__c', input: interleaved.map(flat) });
    // Three batches of 200 at once, each touching all 20 Accounts: the first takes them, the others fail.
    expect(first.successfulResults).toHaveLength(200);
    expect(first.failedResults).toHaveLength(400);
    expect(first.failedResults[0]!.sf__Error).toMatch(/^UNABLE_TO_LOCK_ROW:unable to obtain exclusive access to this record or \d+ records: 001\w{15}(,001\w{15})*:--$/);

    await control(sandbox, 'POST', '/reset');
    await conn.sobject('Account').upsert(accounts(20) as never, 'Commerce_Buyer_Id__c', { allOrNone: false });
    await control(sandbox, 'POST', '/row-locks', { contention: true, batchSize: 200 });
    const byParent = [...interleaved].sort((a, b) => Number(a.Account.Commerce_Buyer_Id__c.slice(2)) - Number(b.Account.Commerce_Buyer_Id__c.slice(2)));
    const sorted = await conn.bulk2.loadAndWaitForResults({ object: 'Contact', operation: 'upsert', externalIdFieldName: 'Commerce_Contact_Id__c', input: byParent.map(flat) });
    // 30 contacts an Account: b-6 spans rows 180-209 (batches 1 and 2), b-13 rows 390-419 (batches 2 and 3).
    // Batch 1 takes b-6 before batch 2, batch 2 b-13 before batch 3: 10 + 20 rows fail.
    expect(sorted.failedResults).toHaveLength(30);
    expect(new Set(sorted.failedResults.map((row) => (row as unknown as Record<string, string>)['Account.Commerce_Buyer_Id__c']))).toEqual(new Set(['b-6', 'b-13']));

    const [job] = await control(sandbox, 'GET', '/jobs');
    const data: string = await (await fetch(`${sandbox.instanceUrl}/_sandbox/jobs/${job.id}/data`)).text();
    expect(data.split('\n')[1]).toContain('b-0');
  });

  it('refuses settings it cannot honour, at start and through the control', async () => {
    await expect(startSalesforceSandbox({ lockFailureRate: 2 })).rejects.toThrow(/failureRate must be a number from 0 to 1/);
    const response = await fetch(`${sandbox.instanceUrl}/_sandbox/row-locks`, { method: 'POST', body: JSON.stringify({ batchSize: 0 }) });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/batchSize must be a whole number of at least 1/);
  });
});

function flat(contact: ReturnType<typeof contacts>[number]) {
  return { LastName: contact.LastName, Commerce_Contact_Id__c: contact.Commerce_Contact_Id__c, 'Account.Commerce_Buyer_Id__c': contact.Account.Commerce_Buyer_Id__c };
}
