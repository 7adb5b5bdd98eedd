// One Bulk API 2.0 write job (an upsert by external id, or an update by record Id), step by step, so that a job is uploaded once and only once:
// create + upload + close (the new job's id is reported at once), poll, read the results.
//
// A job given by id (`resumeId`: an earlier attempt created it) is never uploaded again: it is polled
// and its results read. A poll that runs out of time throws a retryable error carrying the job id, so
// the next attempt resumes that job. A job that ends Failed or Aborted is final: its records that
// Salesforce did not save each get a BULK_JOB_FAILED result (they become dead letters, retried later by
// the sync), never a second job.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from 'jsforce';
import type { ObjectSchema, UpsertItem, UpsertOptions, UpsertResult } from '../connector.ts';
import { bulkJobFailure, bulkRecordError, cancelledError, SalesforceBulkJobError, withBulkJobId } from './errors.ts';

type Call = <T>(work: (connection: Connection) => Promise<T>) => Promise<T>;

export type BulkSteps = {
  /** A call retried inside when it fails for a passing reason (every one used with it is idempotent). */
  guarded: Call;
  /** A call made once: creating and uploading a job must not be repeated blindly. */
  guardedOnce: Call;
  pollIntervalMs: number;
  pollTimeoutMs: number;
  /** Counted when a job is created. */
  onJobCreated(): void;
};

type JobState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';
type JobInfo = { id: string; state: JobState; numberRecordsProcessed?: number; numberRecordsFailed?: number; errorMessage?: string };
type Row = Record<string, string>;

export type BulkOutcome = {
  jobId: string;
  /** One result per item the job held, in input order of `items` (undefined for the others). */
  results: (UpsertResult | undefined)[];
  /** Items of a resumed job's batch that the job did not hold: the caller writes them normally. */
  notInJob: UpsertItem[];
};

/** How a job's rows are keyed: an upsert names its external id field; an update keys rows by Id. */
export type BulkKey = { operation: 'upsert'; field: string } | { operation: 'update'; field: 'Id' };

const FINAL: ReadonlySet<JobState> = new Set(['JobComplete', 'Failed', 'Aborted']);

export async function runBulkUpsert(
  steps: BulkSteps,
  object: string,
  key: BulkKey,
  items: UpsertItem[],
  csv: string,
  options: UpsertOptions = {},
): Promise<BulkOutcome> {
  const ingest = (connection: Connection, id: string) => connection.bulk2.job('ingest', { id });
  let jobId = options.bulkJob?.resumeId;
  let resumed: JobInfo | undefined;

  if (jobId) {
    const id = jobId;
    const info = await steps.guarded(async (connection) => (await ingest(connection, id).check()) as JobInfo).catch((error: unknown) => {
      // A job Salesforce no longer knows (deleted, or older than its retention) has nothing to resume.
      if ((error as { code?: string }).code === 'NOT_FOUND') return undefined;
      throw withBulkJobId(error, id);
    });
    if (info?.state === 'Open') {
      // Never closed (its upload broke off): Salesforce processed nothing of it, so it is aborted and
      // replaced, and nothing can be written twice.
      await steps.guarded((connection) => ingest(connection, id).abort()).catch((error: unknown) => Promise.reject(withBulkJobId(error, id)));
      jobId = undefined;
    } else if (!info) jobId = undefined;
    else resumed = info;
  }

  if (!jobId) {
    checkSignal(options.signal);
    let created: string | undefined;
    try {
      jobId = await steps.guardedOnce(async (connection) => {
        const job = connection.bulk2.createJob({ object, operation: key.operation, ...(key.operation === 'upsert' && { externalIdFieldName: key.field }), lineEnding: 'LF' });
        await job.open();
        created = job.id;
        steps.onJobCreated();
        options.bulkJob?.onCreated?.(job.id);
        await job.uploadData(csv);
        await job.close();
        return job.id;
      });
    } catch (error) {
      // The job exists: the next attempt looks at it (still Open: replaced; closed: polled), never uploads beside it.
      throw created ? withBulkJobId(error, created) : error;
    }
  }

  const finalId = jobId;
  // From here on the job exists: any failure names it, so the next attempt resumes it.
  const named = <T>(work: Promise<T>): Promise<T> => work.catch((error: unknown) => Promise.reject(withBulkJobId(error, finalId)));
  // A resumed job that already ended needs no further poll.
  const info = resumed && FINAL.has(resumed.state) ? report(resumed, options) : await named(poll(steps, finalId, options, !resumed));
  const read = (kind: 'successful' | 'failed' | 'unprocessed') =>
    named(
      steps.guarded(async (connection) => {
        const job = ingest(connection, finalId);
        const rows = kind === 'successful' ? await job.getSuccessfulResults() : kind === 'failed' ? await job.getFailedResults() : await job.getUnprocessedRecords();
        return (Array.isArray(rows) ? rows : []) as unknown as Row[];
      }),
    );
  const endedBadly = info.state !== 'JobComplete';
  // A complete job that says none failed has no failed results to read: one request fewer per job.
  const noneFailed = !endedBadly && info.numberRecordsFailed === 0;
  const successful = await read('successful');
  const failed = noneFailed ? [] : await read('failed');
  const unprocessed = endedBadly && resumed ? await read('unprocessed') : [];

  // Result rows echo the uploaded columns: matched to items by the key column.
  const keyOf = (item: UpsertItem) => (key.operation === 'update' ? item.crmId! : item.externalId);
  const byKey = new Map<string, UpsertResult>();
  for (const row of successful) byKey.set(row[key.field]!, { sourceId: '', ok: true, crmId: row.sf__Id!, created: row.sf__Created === 'true' });
  for (const row of failed) byKey.set(row[key.field]!, { sourceId: '', ok: false, error: bulkRecordError(row.sf__Error ?? '') });
  // What the job held: every item when this attempt uploaded it; for a resumed job, what Salesforce reports.
  const held = new Set([...byKey.keys(), ...unprocessed.map((row) => row[key.field]!)]);
  const jobFailure = endedBadly ? bulkJobFailure(finalId, info.state, info.errorMessage) : undefined;

  const notInJob: UpsertItem[] = [];
  const results = items.map((item): UpsertResult | undefined => {
    const result = byKey.get(keyOf(item));
    if (result) return { ...result, sourceId: item.sourceId };
    if (resumed && !held.has(keyOf(item))) {
      notInJob.push(item);
      return undefined;
    }
    if (jobFailure) return { sourceId: item.sourceId, ok: false, error: jobFailure };
    return { sourceId: item.sourceId, ok: false, error: { code: 'UNPROCESSED', message: 'Bulk API 2.0 did not process this record; it will be retried' } };
  });
  return { jobId: finalId, results, notInJob };
}

/** Polls until the job is final, reporting each poll; stops on the signal or after pollTimeoutMs (both resumable). */
async function poll(steps: BulkSteps, jobId: string, options: UpsertOptions, waitFirst: boolean): Promise<JobInfo> {
  const deadline = performance.now() + steps.pollTimeoutMs;
  const pause = async () => {
    try {
      await sleep(steps.pollIntervalMs, undefined, { signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw cancelledError(jobId);
      throw error;
    }
  };
  // A job just closed is still in the queue: asking at once only costs a request.
  if (waitFirst) await pause();
  for (;;) {
    checkSignal(options.signal, jobId);
    const info = report((await steps.guarded((connection) => connection.bulk2.job('ingest', { id: jobId }).check())) as JobInfo, options);
    if (FINAL.has(info.state)) return info;
    if (performance.now() + steps.pollIntervalMs > deadline) {
      throw new SalesforceBulkJobError(
        `Salesforce is still processing Bulk API job ${jobId} (${info.state}, ${info.numberRecordsProcessed ?? 0} records done) after ${formatDuration(steps.pollTimeoutMs)}; the next attempt picks the same job up without uploading again`,
        jobId,
        { code: 'BULK_JOB_POLL_TIMEOUT', retryable: true, retryAfterMs: steps.pollIntervalMs },
      );
    }
    await pause();
  }
}

/** Each look at the job is reported (the activity heartbeats with it). */
function report(info: JobInfo, options: UpsertOptions): JobInfo {
  options.onProgress?.({ bulkJobId: info.id, state: info.state, recordsProcessed: info.numberRecordsProcessed ?? 0, recordsFailed: info.numberRecordsFailed ?? 0 });
  return info;
}

function checkSignal(signal: AbortSignal | undefined, jobId?: string): void {
  if (signal?.aborted) throw cancelledError(jobId);
}

const formatDuration = (ms: number) => (ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`);

/**
 * Items with their parents' children side by side: Bulk API 2.0 processes a job in parallel batches,
 * and children of one parent in two batches contend for its lock [doc: Organize Data to Minimize Lock
 * Contention: "sort main records based on their parent record"]. A parent is what a row names by a
 * relationship ({Account: {Commerce_Buyer_Id__c: 'b-1'}}) or by a record id in a field the describe
 * calls a reference (`references`: AccountId, Opportunity__c); rows naming none keep their place at the
 * end. Stable: equal parents keep their input order.
 */
export function orderByParent(items: UpsertItem[], references: ReadonlySet<string>): UpsertItem[] {
  const keyed = items.map((item, index) => ({ item, index, key: parentKey(item.fields, references) }));
  keyed.sort((a, b) => (a.key === b.key ? a.index - b.index : a.key === '' ? 1 : b.key === '' ? -1 : a.key < b.key ? -1 : 1));
  return keyed.map(({ item }) => item);
}

/** The fields of `schema` that name a parent record by id (the describe's reference fields). */
export function parentReferences(schema: ObjectSchema): Set<string> {
  const names = new Set<string>();
  for (const field of schema.fields.values()) {
    if (field.type === 'reference' && field.referenceTo?.length) names.add(field.name);
  }
  return names;
}

/**
 * The parents a row names, in field order, as one sortable text ('' for none): relationship objects and
 * reference fields only. A text field whose value merely looks like a record id (Product_Id__c) is none.
 */
export function parentKey(fields: Record<string, unknown>, references: ReadonlySet<string>): string {
  const parents: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 1 && entries[0]![1] !== null && entries[0]![1] !== undefined) parents.push(`${name}.${entries[0]![0]}=${String(entries[0]![1])}`);
    } else if (typeof value === 'string' && value !== '' && references.has(name)) {
      parents.push(`${name}=${value}`);
    }
  }
  return parents.join('\u0000');
}
