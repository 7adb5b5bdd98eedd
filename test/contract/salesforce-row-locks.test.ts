// Row locks through the Salesforce connector (jsforce unmodified, against the sandbox). Saving a child
// locks its parent and Salesforce refuses a row whose lock it cannot get with UNABLE_TO_LOCK_ROW; the
// connector sends such rows again, promptly and only them, so a lock costs a re-send, not a dead letter
// (and not the dead letters of the record's children, whose parent would be missing).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpsertItem, UpsertResult } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control } from '../../sandbox/salesforce/testing.ts';

const BUYERS = 30;
const accounts = (): UpsertItem[] =>
  Array.from({ length: BUYERS }, (_, i) => ({ sourceId: `b-${i}`, externalIdField: 'Commerce_Buyer_Id__c', externalId: `b-${i}`, fields: { Name: `Buyer ${i}` } }));
/** Opportunity i on buyer i % BUYERS: a buyer's deals spread over the whole list. */
const opportunities = (count: number): UpsertItem[] =>
  Array.from({ length: count }, (_, i) => ({
    sourceId: `o-${i}`,
    externalIdField: 'Commerce_Offer_Id__c',
    externalId: `o-${i}`,
    fields: { Name: `Offer ${i}`, StageName: 'Prospecting', CloseDate: '2026-12-31', Account: { Commerce_Buyer_Id__c: `b-${i % BUYERS}` } },
  }));
/** Entitlement i of offer i: a child of an Opportunity that may itself have met a lock. */
const entitlements = (count: number): UpsertItem[] =>
  Array.from({ length: count }, (_, i) => ({
    sourceId: `e-${i}`,
    externalIdField: 'Commerce_Entitlement_Id__c',
    externalId: `e-${i}`,
    fields: { Name: `Entitlement ${i}`, Account__r: { Commerce_Buyer_Id__c: `b-${i % BUYERS}` }, Opportunity__r: { Commerce_Offer_Id__c: `o-${i}` } },
  }));
const contacts = (count: number, parents: number): UpsertItem[] =>
  Array.from({ length: count }, (_, i) => ({
    sourceId: `c-${i}`,
    externalIdField: 'Commerce_Contact_Id__c',
    externalId: `c-${i}`,
    fields: { LastName: `Person ${i}`, Account: { Commerce_Buyer_Id__c: `b-${i % parents}` } },
  }));

const failures = (results: UpsertResult[]) => results.filter((result) => !result.ok);
type RowLocks = { failed: number; failedDrawn: number; failedContended: number };

describe('Salesforce connector: rows Salesforce could not lock are sent again', () => {
  let sandbox: SalesforceSandbox;
  const connector = (settings: { bulkThreshold?: number; attempts?: number } = {}) =>
    createSalesforceConnector(
      { loginUrl: sandbox.loginUrl, bulkThreshold: settings.bulkThreshold ?? 2000, bulkPollIntervalMs: 25, lookbackSeconds: 0, lockRetry: { minDelayMs: 5, maxDelayMs: 40, attempts: settings.attempts } },
      { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    );
  const rowLocks = (): Promise<RowLocks> => control(sandbox, 'GET', '/row-locks');
  const stored = (object: string): Promise<Record<string, any>[]> => control(sandbox, 'GET', `/records/${object}`);

  beforeAll(async () => {
    // As bench/scenarios.ts starts it: a share of child rows meets a lock held by other work.
    sandbox = await startSalesforceSandbox({ lockFailureRate: 0.1, lockSeed: 3 });
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('lands every Account, Opportunity and entitlement at a 10% lock rate, re-sending exactly the rows Salesforce refused', async () => {
    const sf = connector();
    expect(failures(await sf.upsert('Account', accounts()))).toEqual([]);
    const deals = await sf.upsert('Opportunity', opportunities(300));
    expect(failures(deals)).toEqual([]);
    // The entitlements of deals that met a lock find their Opportunity: it landed in the same call.
    const children = await sf.upsert('Marketplace_Entitlement__c', entitlements(300));
    expect(failures(children)).toEqual([]);

    const dealIds = new Map((await stored('Opportunity')).map((o) => [o.Commerce_Offer_Id__c, o.Id]));
    const saved = await stored('Marketplace_Entitlement__c');
    expect(saved).toHaveLength(300);
    for (const entitlement of saved) expect(entitlement.Opportunity__c).toBe(dealIds.get(entitlement.Commerce_Entitlement_Id__c.replace('e-', 'o-')));
    expect(dealIds.size).toBe(300);

    // Every refusal the org answered was sent again once (an Account locks no parent, so none met one).
    const refused = (await rowLocks()).failed;
    expect(sf.stats.lockRetriedRecords).toBe(refused);
    // 600 child rows at 0.1: 60 refusals on the first send (standard deviation 7.3) and about 6 of
    // their re-sends; 30 and 100 are more than four standard deviations away.
    expect(refused).toBeGreaterThan(30);
    expect(refused).toBeLessThan(100);
  });

  it('gives a row still locked after its re-sends back with Salesforce\'s code and message, saying it is retried later', async () => {
    await control(sandbox, 'POST', '/row-locks', { failureRate: 1 });
    const sf = connector({ attempts: 2 });
    await sf.upsert('Account', accounts());
    const results = await sf.upsert('Opportunity', opportunities(10));
    expect(failures(results)).toHaveLength(10);
    const [first] = failures(results) as Extract<UpsertResult, { ok: false }>[];
    expect(first!.error.code).toBe('UNABLE_TO_LOCK_ROW');
    expect(first!.error.message).toMatch(/^unable to obtain exclusive access to this record or 1 records: 001\w{15} \(Salesforce could not lock the record or its parent/);
    expect(first!.error.message).toMatch(/Sent again 2 times over [\d.]+ s, it was still locked\. The sync tries this record again later\.\)$/);
    expect(sf.stats.lockRetriedRecords).toBe(20);
    expect((await rowLocks()).failed).toBe(30);
  });

  it("Bulk API 2.0: uploads rows ordered by parent, so Salesforce's parallel batches contend only at their edges, and sends those rows again", async () => {
    await control(sandbox, 'POST', '/row-locks', { failureRate: 0, contention: true, batchSize: 200 });
    const sf = connector({ bulkThreshold: 100 });
    await sf.upsert('Account', accounts().slice(0, 20));
    const results = await sf.upsert('Contact', contacts(600, 20));
    expect(failures(results)).toEqual([]);
    expect(sf.stats.bulkJobs).toBe(1);
    expect(await stored('Contact')).toHaveLength(600);

    // The CSV as uploaded: each buyer's 30 contacts on consecutive lines.
    const [job] = (await control(sandbox, 'GET', '/jobs')) as { id: string }[];
    const [header, ...lines] = (await (await fetch(`${sandbox.instanceUrl}/_sandbox/jobs/${job!.id}/data`)).text()).trim().split('\n');
    const column = header!.split(',').indexOf('Account.Commerce_Buyer_Id__c');
    const parents = lines.map((line) => line.split(',')[column]);
    expect(parents).toHaveLength(600);
    const runs = parents.filter((parent, i) => i === 0 || parent !== parents[i - 1]);
    expect(runs).toHaveLength(20);
    expect(new Set(runs).size).toBe(20);

    // Batches of 200 rows cut two buyers' runs of 30 (rows 180-209 and 390-419): 10 + 20 rows of the
    // later batches meet the lock, and only they are sent again.
    expect(await rowLocks()).toMatchObject({ failed: 30, failedContended: 30 });
    expect(sf.stats.lockRetriedRecords).toBe(30);
  });

  it("a resumed Bulk job's rows written by collections are lock-retried there only, not sent again after the job", async () => {
    await control(sandbox, 'POST', '/row-locks', { failureRate: 0 });
    const sf = connector({ bulkThreshold: 100, attempts: 2 });
    await sf.upsert('Account', accounts());
    const people = contacts(150, BUYERS);
    const created: string[] = [];
    expect(failures(await sf.upsert('Contact', people, { bulkJob: { onCreated: (id) => created.push(id) } }))).toEqual([]);
    expect(created).toHaveLength(1);

    // The activity died before recording the job's results; its next attempt resumes the job with three
    // more contacts, which go by collections while every child row meets a lock.
    await control(sandbox, 'POST', '/row-locks', { failureRate: 1 });
    const late = contacts(153, BUYERS).slice(150);
    const results = await sf.upsert('Contact', [...people, ...late], { bulkJob: { resumeId: created[0], onCreated: (id) => created.push(id) } });
    expect(created).toHaveLength(1);
    expect(failures(results).map((result) => result.sourceId)).toEqual(['c-150', 'c-151', 'c-152']);
    // Collections sent each of them twice more (2 attempts): 3 first refusals + 6 re-sends refused.
    expect(sf.stats.lockRetriedRecords).toBe(6);
    expect((await rowLocks()).failed).toBe(9);
    for (const result of failures(results) as Extract<UpsertResult, { ok: false }>[]) expect(result.error.message.match(/Salesforce could not lock/g)).toHaveLength(1);
  });
});
