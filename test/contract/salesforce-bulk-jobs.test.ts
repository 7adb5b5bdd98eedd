// Bulk API 2.0 jobs through the Salesforce connector (jsforce unmodified, against the sandbox): a job is
// uploaded once. A poll that runs out of time, a cancelled activity or a broken-off upload leaves the
// job's id for the next attempt, which resumes that job; a job Salesforce fails or aborts is final and
// answers a failure per record, never a second job.
import jsforce from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmBudgetExhaustedError, CrmError, type UpsertItem, type UpsertResult } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import type { SalesforceSettings } from '../../crm/salesforce/session.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

const accounts = (count: number, prefix: string, extra: Record<string, unknown> = {}): UpsertItem[] =>
  Array.from({ length: count }, (_, index) => ({
    sourceId: `${prefix}-${index}`,
    externalIdField: 'Commerce_Buyer_Id__c',
    externalId: `${prefix}-${index}`,
    fields: { Name: `Buyer ${index}`, ...extra },
  }));

type Job = { id: string; state: string; successful: number; failed: number };
type Failure = CrmError & { bulkJobId?: string };

describe('Salesforce connector: Bulk API 2.0 jobs are uploaded once', () => {
  let sandbox: SalesforceSandbox;
  const connector = (settings: Partial<SalesforceSettings> = {}) =>
    createSalesforceConnector(
      { loginUrl: sandbox.loginUrl, bulkThreshold: 2000, bulkPollIntervalMs: 40, lookbackSeconds: 0, ...settings },
      { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    );
  const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Failure);
  const jobs = (): Promise<Job[]> => control(sandbox, 'GET', '/jobs');
  const storedIds = async () => ((await control(sandbox, 'GET', '/records/Account')) as { Commerce_Buyer_Id__c: string }[]).map((r) => r.Commerce_Buyer_Id__c);

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('throws a retryable error naming the job when polling runs out of time; the resumed call finishes that job without uploading again', async () => {
    await control(sandbox, 'POST', '/jobs/processing', { paused: true }); // Salesforce is slow today
    // Long enough for two polls on a loaded machine (the job never finishes while processing is paused).
    const sf = connector({ bulkPollTimeoutMs: 2_000 });
    const items = accounts(2500, 'slow');
    const created: string[] = [];
    const progress: Record<string, unknown>[] = [];
    const failure = await errorOf(sf.upsert('Account', items, { bulkJob: { onCreated: (id) => created.push(id) }, onProgress: (detail) => progress.push(detail) }));

    expect(created).toHaveLength(1);
    expect(created[0]).toMatch(/^750/);
    expect(failure).toBeInstanceOf(CrmError);
    expect(failure).toMatchObject({ retryable: true, code: 'BULK_JOB_POLL_TIMEOUT', bulkJobId: created[0] });
    expect(failure!.message).toMatch(new RegExp(`Salesforce is still processing Bulk API job ${created[0]} \\(UploadComplete, 0 records done\\) after 2 s; the next attempt picks the same job up`));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toEqual({ bulkJobId: created[0], state: 'UploadComplete', recordsProcessed: 0, recordsFailed: 0 });
    expect(await jobs()).toMatchObject([{ id: created[0], state: 'UploadComplete' }]);

    await control(sandbox, 'POST', '/jobs/processing', { paused: false });
    await control(sandbox, 'POST', '/calls/reset');
    const results = await sf.upsert('Account', items, { bulkJob: { resumeId: created[0], onCreated: (id) => created.push(id) } });
    expect(results.map((result) => result.sourceId)).toEqual(items.map((item) => item.sourceId));
    expect(results.every((result) => result.ok && result.created)).toBe(true);
    const counted = await callCounts(sandbox);
    expect(counted['bulk2-create']).toBeUndefined();
    expect(counted['bulk2-upload']).toBeUndefined();
    expect(counted['bulk2-poll']).toBeGreaterThanOrEqual(1);
    expect(created).toHaveLength(1);
    expect(await jobs()).toMatchObject([{ id: created[0], state: 'JobComplete', successful: 2500 }]);
    expect((await storedIds()).length).toBe(2500);
  });

  it('resumes a job that already completed: its results are read, and only the records it did not hold are written', async () => {
    const sf = connector();
    const items = accounts(2100, 'done');
    const created: string[] = [];
    const first = await sf.upsert('Account', items, { bulkJob: { onCreated: (id) => created.push(id) } });
    expect(first.every((result) => result.ok)).toBe(true);
    await control(sandbox, 'POST', '/calls/reset');

    // The activity died before recording the results; its next attempt reads three more records with the batch.
    const batch = [...items, ...accounts(3, 'late')];
    const again = await sf.upsert('Account', batch, { bulkJob: { resumeId: created[0], onCreated: (id) => created.push(id) } });
    expect(again.slice(0, 2100)).toEqual(first);
    expect(again.slice(2100)).toMatchObject([
      { sourceId: 'late-0', ok: true, created: true },
      { sourceId: 'late-1', ok: true, created: true },
      { sourceId: 'late-2', ok: true, created: true },
    ]);
    // The job says none of its records failed, so its failed results are not asked for.
    expect(await callCounts(sandbox)).toEqual({
      'bulk2-poll': 1,
      'bulk2-successful-results': 1,
      'composite-upsert': 1,
      total: 3,
    });
    expect(created).toHaveLength(1);
    expect((await storedIds()).length).toBe(2103);
  });

  it('answers a failure per record for a job Salesforce fails as a whole, with exactly one job and no retry', async () => {
    const sf = connector();
    const items = accounts(2100, 'doomed', { Region__c: 'EMEA' }); // a column the org lacks fails the whole job
    const results = await sf.upsert('Account', items);
    expect(results).toHaveLength(2100);
    const [job] = await jobs();
    for (const [index, result] of results.entries()) {
      expect(result).toEqual({
        sourceId: `doomed-${index}`,
        ok: false,
        error: { code: 'BULK_JOB_FAILED', message: `Salesforce's Bulk API job ${job!.id} failed before it saved this record. Salesforce said: InvalidBatch : Field name not found : Region__c The record is kept and retried later.` },
      });
    }
    expect(await jobs()).toMatchObject([{ state: 'Failed' }]);
    const counted = await callCounts(sandbox);
    expect(counted).toMatchObject({ 'bulk2-create': 1, 'bulk2-upload': 1, 'bulk2-close': 1 });
    expect(await storedIds()).toEqual([]);
  });

  it('answers BULK_JOB_FAILED for every record of a resumed job that was aborted in Setup, and uploads nothing again', async () => {
    await control(sandbox, 'POST', '/jobs/processing', { paused: true });
    const sf = connector({ bulkPollTimeoutMs: 200 });
    const items = accounts(2000, 'aborted');
    const failure = await errorOf(sf.upsert('Account', items));
    const jobId = failure!.bulkJobId!;
    // Someone aborts the waiting job in Setup.
    const { conn } = await clientCredentialsConnection(sandbox);
    await conn.bulk2.job('ingest', { id: jobId }).abort();
    await control(sandbox, 'POST', '/jobs/processing', { paused: false });
    await control(sandbox, 'POST', '/calls/reset');

    const results = await sf.upsert('Account', items, { bulkJob: { resumeId: jobId } });
    expect(new Set(results.map((result) => (result.ok ? 'ok' : result.error.code)))).toEqual(new Set(['BULK_JOB_FAILED']));
    expect((results[0] as Extract<UpsertResult, { ok: false }>).error.message).toBe(
      `Salesforce's Bulk API job ${jobId} was aborted (in Setup or by Salesforce) before it saved this record. The record is kept and retried later.`,
    );
    const counted = await callCounts(sandbox);
    expect(counted['bulk2-create']).toBeUndefined();
    expect(counted['bulk2-upload']).toBeUndefined();
    expect(await jobs()).toHaveLength(1);
  });

  it('replaces a job whose upload broke off before it was closed (nothing of it ran), once', async () => {
    await control(sandbox, 'POST', '/faults', { endpoint: 'bulk2-close', rate500: 1 });
    const sf = connector({ retries: 0 });
    const items = accounts(2050, 'broken');
    const created: string[] = [];
    const failure = await errorOf(sf.upsert('Account', items, { bulkJob: { onCreated: (id) => created.push(id) } }));
    expect(failure).toMatchObject({ retryable: true, bulkJobId: created[0], code: 'UNKNOWN_EXCEPTION' });
    expect(await jobs()).toMatchObject([{ id: created[0], state: 'Open' }]);

    await control(sandbox, 'DELETE', '/faults');
    const results = await sf.upsert('Account', items, { bulkJob: { resumeId: created[0], onCreated: (id) => created.push(id) } });
    expect(results.every((result) => result.ok && result.created)).toBe(true);
    expect(created).toHaveLength(2);
    expect(await jobs()).toMatchObject([
      { id: created[0], state: 'Aborted', successful: 0 },
      { id: created[1], state: 'JobComplete', successful: 2050 },
    ]);
    expect((await storedIds()).length).toBe(2050);
  });

  it('parks on a spent daily limit while polling, still naming the job, and resumes it after the park', async () => {
    await control(sandbox, 'POST', '/jobs/processing', { paused: true });
    const sf = connector({ parkSeconds: 0 }); // the park is over at once: the next call reads the limits first
    const items = accounts(2000, 'budget');
    const created: string[] = [];
    // The rows are grouped by the lookups Account's describe names: read it before the allowance runs low.
    await sf.describe('Account');
    // Enough allowance left to create, upload and close the job (Bulk calls count too), not to poll it.
    await control(sandbox, 'POST', '/limits', { dailyApiLimit: 5000, used: 4997 });
    const failure = await errorOf(sf.upsert('Account', items, { bulkJob: { onCreated: (id) => created.push(id) } }));
    expect(failure).toBeInstanceOf(CrmBudgetExhaustedError);
    expect(failure).toMatchObject({ code: 'REQUEST_LIMIT_EXCEEDED', bulkJobId: created[0] });

    await control(sandbox, 'POST', '/limits', { used: 0 });
    await control(sandbox, 'POST', '/jobs/processing', { paused: false });
    await control(sandbox, 'POST', '/calls/reset');
    const results = await sf.upsert('Account', items, { bulkJob: { resumeId: created[0], onCreated: (id) => created.push(id) } });
    expect(results.every((result) => result.ok)).toBe(true);
    expect(created).toHaveLength(1);
    expect((await callCounts(sandbox))['bulk2-upload']).toBeUndefined();
  });

  it('stops polling when the signal aborts, naming the job, and sends no collection call once aborted', async () => {
    await control(sandbox, 'POST', '/jobs/processing', { paused: true });
    const sf = connector();
    const controller = new AbortController();
    let polls = 0;
    const failure = await errorOf(
      sf.upsert('Account', accounts(2000, 'cancelled'), {
        signal: controller.signal,
        onProgress: () => {
          polls += 1;
          if (polls === 2) controller.abort();
        },
      }),
    );
    expect(failure).toMatchObject({ code: 'CANCELLED', retryable: true, bulkJobId: expect.stringMatching(/^750/) });
    expect((await callCounts(sandbox))['bulk2-poll']).toBe(2);

    await control(sandbox, 'POST', '/calls/reset');
    const aborted = AbortSignal.abort();
    await expect(sf.upsert('Account', accounts(450, 'never'), { signal: aborted })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await callCounts(sandbox)).toEqual({ total: 0 });
  });

  it('looks at the signal between collection calls', async () => {
    const sf = connector();
    await sf.verify();
    await control(sandbox, 'POST', '/faults', { endpoint: 'composite-upsert', latencyMs: 300 });
    await control(sandbox, 'POST', '/calls/reset');
    const controller = new AbortController();
    const pending = errorOf(sf.upsert('Account', accounts(1000, 'chunked'), { signal: controller.signal }));
    // Abort while the second of five calls is held by the sandbox (it counts a call when it arrives).
    while (((await callCounts(sandbox))['composite-upsert'] ?? 0) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const failure = await pending;
    expect(failure).toMatchObject({ code: 'CANCELLED', message: 'Stopped writing to Salesforce: the sync step was cancelled before the next call' });
    expect((await callCounts(sandbox))['composite-upsert']).toBe(2);
    expect((await storedIds()).length).toBe(400);
  });
  it('updates a large group of linked records by Id in one Bulk job; a deleted record fails alone, with Salesforce\'s code', async () => {
    const sf = connector();
    const items = accounts(2100, 'linked');
    const ids = (await sf.upsert('Account', items)).map((result) => (result.ok ? result.crmId : ''));
    const { conn } = await clientCredentialsConnection(sandbox);
    await conn.sobject('Account').destroy(ids[7]!);
    await control(sandbox, 'POST', '/calls/reset');

    const linked = items.map((item, index) => ({ ...item, crmId: ids[index], fields: { Name: `Renamed ${index}` } }));
    const created: string[] = [];
    const results = await sf.upsert('Account', linked, { bulkJob: { onCreated: (id) => created.push(id) } });

    expect(created).toHaveLength(1);
    const calls = await callCounts(sandbox);
    expect(calls['composite-update'] ?? 0).toBe(0);
    expect(calls).toMatchObject({ 'bulk2-create': 1, 'bulk2-upload': 1, 'bulk2-close': 1, 'bulk2-successful-results': 1, 'bulk2-failed-results': 1 });
    expect(results[7]).toMatchObject({ sourceId: 'linked-7', ok: false, error: { code: 'ENTITY_IS_DELETED' } });
    expect(results.filter((result) => result.ok)).toHaveLength(2099);
    expect(results[0]).toEqual({ sourceId: 'linked-0', ok: true, crmId: ids[0], created: false });
    expect(results[2099]).toEqual({ sourceId: 'linked-2099', ok: true, crmId: ids[2099], created: false });
    const stored = (await control(sandbox, 'GET', '/records/Account')) as { Id: string; Name: string }[];
    const nameOf = new Map(stored.map((row) => [row.Id, row.Name]));
    expect(nameOf.get(ids[0]!)).toBe('Renamed 0');
    expect(nameOf.get(ids[2099]!)).toBe('Renamed 2099');
    expect(stored).toHaveLength(2099);
  });

  it('sends a large group that names one record twice through collections, each row answered', async () => {
    const sf = connector();
    const items = accounts(2000, 'twice');
    const ids = (await sf.upsert('Account', items)).map((result) => (result.ok ? result.crmId : ''));
    await control(sandbox, 'POST', '/calls/reset');
    const linked = items.map((item, index) => ({ ...item, crmId: ids[index === 1 ? 0 : index], fields: { Name: `Again ${index}` } }));
    const results = await sf.upsert('Account', linked);
    const calls = await callCounts(sandbox);
    expect(calls['bulk2-create'] ?? 0).toBe(0);
    expect(calls['composite-update']).toBe(10);
    expect(results).toHaveLength(2000);
    expect(results[0]).toEqual({ sourceId: 'twice-0', ok: true, crmId: ids[0], created: false });
    // The second row would give record 0 another record's unique external id: Salesforce refuses that row alone.
    expect(results[1]).toMatchObject({ sourceId: 'twice-1', ok: false, error: { code: 'DUPLICATE_VALUE' } });
    expect(results.slice(2).every((result) => result.ok)).toBe(true);
  });
});
