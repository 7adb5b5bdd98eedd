// Bulk API 2.0 ingest, as jsforce's bulk2 module drives it: POST /jobs/ingest → PUT
// /jobs/ingest/{id}/batches (text/csv) → PATCH /jobs/ingest/{id} {state: UploadComplete} → poll
// GET /jobs/ingest/{id} until JobComplete or Failed → GET successfulResults / failedResults /
// unprocessedrecords (CSV). Errors answer [{errorCode, message}].
import { DELIMITERS, parseCsv, toCsv } from './csv.ts';
import { notFound, RequestError } from './errors.ts';
import { csv, json, noContent, type Ctx, type Reply } from './http.ts';
import { canonicalId, USER_ID } from './ids.ts';
import { parseJsonBody } from './json-record.ts';
import { findField, findObject, isUpsertKey } from './schema.ts';
import { failWholeJob, processJob } from './bulk2-process.ts';
import type { IngestJob, IngestOperation } from './bulk2-jobs.ts';
import { writeEnv } from './sobjects.ts';
import { formatDateTime } from './values.ts';

const OPERATIONS: IngestOperation[] = ['insert', 'update', 'upsert', 'delete', 'hardDelete'];
const invalidJob = (message: string) => new RequestError(400, 'INVALIDJOB', message);
const invalidState = (message: string) => new RequestError(409, 'INVALIDJOBSTATE', message);

function jobInfo(job: IngestJob, detail: boolean) {
  const info: Record<string, unknown> = {
    id: job.id,
    operation: job.operation,
    object: job.object.name,
    createdById: USER_ID,
    createdDate: job.createdDate,
    systemModstamp: job.systemModstamp,
    state: job.state,
    ...(job.externalIdField ? { externalIdFieldName: job.externalIdField.name } : {}),
    concurrencyMode: 'Parallel',
    contentType: 'CSV',
    apiVersion: Number(job.apiVersion),
    contentUrl: `services/data/v${job.apiVersion}/jobs/ingest/${job.id}/batches`,
    lineEnding: job.lineEnding,
    columnDelimiter: job.columnDelimiter,
  };
  if (!detail) return info;
  return {
    ...info,
    jobType: 'V2Ingest',
    numberRecordsProcessed: job.successful.length + job.failed.length,
    numberRecordsFailed: job.failed.length,
    retries: 0,
    totalProcessingTime: job.processingMs,
    apiActiveProcessingTime: job.processingMs,
    apexProcessingTime: 0,
    ...(job.errorMessage ? { errorMessage: job.errorMessage } : {}),
  };
}

function jobOf(ctx: Ctx): IngestJob {
  const job = ctx.state.jobs.get(canonicalId(ctx.params.id) ?? '');
  if (!job) throw notFound();
  return job;
}

export function createJob(ctx: Ctx): Reply {
  const body = parseJsonBody(ctx.body) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object') throw invalidJob('InvalidJob : the request body must be a job definition');
  const object = typeof body.object === 'string' ? findObject(body.object) : undefined;
  if (!object) throw invalidJob(`InvalidJob : Unable to find object: ${String(body.object)}`);
  const operation = OPERATIONS.find((o) => o === body.operation);
  if (!operation) throw invalidJob(`InvalidJob : Invalid operation: ${String(body.operation)}`);
  if (body.contentType !== undefined && body.contentType !== 'CSV') throw invalidJob(`InvalidJob : Invalid contentType: ${String(body.contentType)}`);
  const lineEnding = body.lineEnding ?? 'LF';
  if (lineEnding !== 'LF' && lineEnding !== 'CRLF') throw invalidJob(`InvalidJob : Invalid lineEnding: ${String(lineEnding)}`);
  const columnDelimiter = String(body.columnDelimiter ?? 'COMMA');
  if (!(columnDelimiter in DELIMITERS)) throw invalidJob(`InvalidJob : Invalid columnDelimiter: ${columnDelimiter}`);
  let externalIdField;
  if (operation === 'upsert') {
    if (typeof body.externalIdFieldName !== 'string' || !body.externalIdFieldName) throw invalidJob('InvalidJob : External ID field name is required for upsert');
    externalIdField = findField(object, body.externalIdFieldName);
    if (!externalIdField || !isUpsertKey(externalIdField)) {
      throw invalidJob(`InvalidJob : Field name provided, ${body.externalIdFieldName} does not match an External ID, Salesforce Id, or indexed field for ${object.name}`);
    }
  }
  const stamp = formatDateTime(ctx.state.config.now().getTime());
  const job: IngestJob = {
    id: ctx.state.jobs.newId(),
    object,
    operation,
    externalIdField,
    state: 'Open',
    createdDate: stamp,
    systemModstamp: stamp,
    apiVersion: ctx.version,
    lineEnding,
    columnDelimiter,
    data: undefined,
    header: [],
    successful: [],
    failed: [],
    unprocessed: [],
    errorMessage: undefined,
    processingMs: 0,
    cancelled: false,
  };
  ctx.state.jobs.add(job);
  return json(200, jobInfo(job, false));
}

export function uploadData(ctx: Ctx): Reply {
  const job = jobOf(ctx);
  if (job.state !== 'Open') throw invalidState(`InvalidJobState : Job ${job.id} is not open for data upload (state ${job.state})`);
  if (job.data !== undefined) throw invalidState(`InvalidJobState : Job ${job.id} already has its data: a job takes one upload`);
  job.data = ctx.body;
  return { status: 201 };
}

export function changeState(ctx: Ctx): Reply {
  const job = jobOf(ctx);
  const body = parseJsonBody(ctx.body) as { state?: unknown } | null;
  const wanted = body?.state;
  if (wanted === 'UploadComplete') {
    if (job.state !== 'Open') throw invalidState(`InvalidJobState : Job ${job.id} is ${job.state}, not Open`);
    job.state = 'UploadComplete';
    job.systemModstamp = formatDateTime(ctx.state.config.now().getTime());
    const env = writeEnv(ctx);
    // Processed asynchronously, as in Salesforce: clients poll for JobComplete (held while a test pauses processing).
    ctx.state.jobs.whenProcessing(() => {
      if (job.cancelled || job.state !== 'UploadComplete') return;
      const forced = ctx.state.jobs.takeForcedFailure();
      if (forced) failWholeJob(job, forced, env.now());
      else void processJob(job, { ...env, rowLocks: ctx.state.rowLocks });
    });
    return json(200, jobInfo(job, false));
  }
  if (wanted === 'Aborted') {
    if (!['Open', 'UploadComplete', 'InProgress'].includes(job.state)) throw invalidState(`InvalidJobState : Job ${job.id} is ${job.state} and cannot be aborted`);
    if (job.state !== 'InProgress' && job.data) {
      // Nothing was processed: every uploaded row is unprocessed.
      try {
        const [header = [], ...rows] = parseCsv(job.data, delimiterOf(job));
        job.header = header;
        job.unprocessed = rows.filter((r) => !(r.length === 1 && r[0] === ''));
      } catch {
        // An unreadable upload has no rows to give back.
      }
    }
    job.state = 'Aborted';
    job.systemModstamp = formatDateTime(ctx.state.config.now().getTime());
    return json(200, jobInfo(job, false));
  }
  throw invalidState(`InvalidJobState : Invalid state: ${String(wanted)}`);
}

export const getJob = (ctx: Ctx): Reply => json(200, jobInfo(jobOf(ctx), true));

export function listJobs(ctx: Ctx): Reply {
  return json(200, { done: true, records: ctx.state.jobs.list().map((j) => jobInfo(j, false)), nextRecordsUrl: null });
}

export function deleteJob(ctx: Ctx): Reply {
  const job = jobOf(ctx);
  if (job.state === 'Open' || job.state === 'InProgress') throw invalidState(`InvalidJobState : Job ${job.id} is ${job.state} and cannot be deleted`);
  job.cancelled = true;
  ctx.state.jobs.delete(job.id);
  return noContent();
}

const delimiterOf = (job: IngestJob) => DELIMITERS[job.columnDelimiter] ?? ',';
export const successfulResults = (ctx: Ctx): Reply => {
  const job = jobOf(ctx);
  return csv(200, toCsv(['sf__Id', 'sf__Created', ...job.header], job.successful, delimiterOf(job)));
};
export const failedResults = (ctx: Ctx): Reply => {
  const job = jobOf(ctx);
  return csv(200, toCsv(['sf__Id', 'sf__Error', ...job.header], job.failed, delimiterOf(job)));
};
export const unprocessedRecords = (ctx: Ctx): Reply => {
  const job = jobOf(ctx);
  return csv(200, toCsv(job.header, job.unprocessed, delimiterOf(job)));
};
