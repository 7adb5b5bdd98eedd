// Processing an ingest job's CSV after UploadComplete, off the request path: header checked (an
// unknown column fails the whole job, as in Salesforce), then rows saved in chunks of 200 with the
// same rules as the REST API, each row succeeding or failing on its own. CSV cell rules: an empty
// cell leaves the field as it is, `#N/A` sets it to null, `Parent__r.Ext__c` names a parent.
import { CsvError, DELIMITERS, parseCsv } from './csv.ts';
import { errors, type RecordError } from './errors.ts';
import type { IngestJob, JobState } from './bulk2-jobs.ts';
import { findField, findObject, findRelationship, isUpsertKey, type SandboxField, type SandboxObject } from './schema.ts';
import { coerceCsv, formatDateTime, xsdTypeName } from './values.ts';
import { emptyInput, saveRecords, type RecordInput, type WriteEnv, type WriteMode } from './writes.ts';
import type { RowLocks } from './row-locks.ts';

const CHUNK = 200;
const NULL_CELL = '#N/A';

type Column = { kind: 'field'; field: SandboxField } | { kind: 'parent'; reference: SandboxField; parent: SandboxObject; keyField: SandboxField };

class JobFailure extends Error {}

function resolveColumns(job: IngestJob): Column[] {
  const columns = job.header.map((raw): Column => {
    const name = raw.trim();
    const dot = name.indexOf('.');
    if (dot < 0) {
      const field = findField(job.object, name);
      if (!field) throw new JobFailure(`InvalidBatch : Field name not found : ${name}`);
      return { kind: 'field', field };
    }
    const reference = findRelationship(job.object, name.slice(0, dot));
    const parent = reference ? findObject(reference.referenceTo[0]!) : undefined;
    const keyField = parent ? findField(parent, name.slice(dot + 1)) : undefined;
    if (!reference || !parent || !keyField) throw new JobFailure(`InvalidBatch : Field name not found : ${name}`);
    if (!isUpsertKey(keyField)) {
      throw new JobFailure(`InvalidBatch : Field name provided, ${keyField.name} does not match an External ID, Salesforce Id, or indexed field for ${parent.name}`);
    }
    return { kind: 'parent', reference, parent, keyField };
  });
  const needed = job.operation === 'upsert' ? job.externalIdField! : job.operation === 'insert' ? undefined : job.object.fields[0]!;
  if (needed && !columns.some((c) => c.kind === 'field' && c.field === needed)) throw new JobFailure(`InvalidBatch : Field name not found : ${needed.name}`);
  return columns;
}

function rowToItem(job: IngestJob, columns: Column[], row: string[]): { input: RecordInput; mode: WriteMode } {
  const input = emptyInput(job.object);
  columns.forEach((column, index) => {
    const text = row[index] ?? '';
    if (text === '') return;
    if (column.kind === 'parent') {
      input.parents.push({ field: column.reference, parent: column.parent, keyField: column.keyField, value: text === NULL_CELL ? null : text });
      return;
    }
    if (text === NULL_CELL) {
      input.values.set(column.field.name, null);
      return;
    }
    const coerced = coerceCsv(column.field, text);
    if (coerced.ok) input.values.set(column.field.name, coerced.value);
    else input.errors.push(errors.csvUnreadable(index + 1, text, xsdTypeName(column.field)));
  });
  const id = input.values.get('Id');
  switch (job.operation) {
    case 'insert':
      return { input, mode: { kind: 'create' } };
    case 'update':
      return { input, mode: { kind: 'update', id } };
    case 'delete':
    case 'hardDelete':
      return { input: emptyInput(job.object), mode: { kind: 'delete', id } };
    case 'upsert': {
      const keyField = job.externalIdField!;
      const key = input.values.get(keyField.name);
      input.values.delete(keyField.name);
      if (keyField.name !== 'Id') input.values.delete('Id');
      return { input, mode: { kind: 'upsert', keyField, key } };
    }
  }
}

/** The Bulk API's sf__Error text: `CODE:message:Field1,Field2 --`, or `CODE:message:--` without fields. */
const errorText = (list: RecordError[]) => list.map((e) => `${e.statusCode}:${e.message}:${e.fields.length > 0 ? `${e.fields.join(',')} ` : ''}--`).join(' ');

const fail = (job: IngestJob, message: string, rows: string[][]) => {
  job.state = 'Failed';
  job.errorMessage = message;
  job.unprocessed = rows;
};

/** A job Salesforce fails as a whole before saving any row (forced by a test): every row is unprocessed. */
export function failWholeJob(job: IngestJob, message: string, now: Date): void {
  let rows: string[][] = [];
  try {
    rows = parseCsv(job.data ?? '', DELIMITERS[job.columnDelimiter] ?? ',');
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
  }
  const [header = [], ...body] = rows;
  job.header = header;
  fail(job, message, body.filter((r) => !(r.length === 1 && r[0] === '')));
  job.systemModstamp = formatDateTime(now.getTime());
}

export async function processJob(job: IngestJob, env: WriteEnv & { rowLocks?: RowLocks }): Promise<void> {
  const started = Date.now();
  job.state = 'InProgress';
  job.systemModstamp = formatDateTime(env.now().getTime());
  let rows: string[][];
  try {
    rows = parseCsv(job.data ?? '', DELIMITERS[job.columnDelimiter] ?? ',');
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    return fail(job, `InvalidBatch : Failed to parse CSV: ${error.message}`, []);
  }
  const [header = [], ...body] = rows;
  const dataRows = body.filter((r) => !(r.length === 1 && r[0] === ''));
  job.header = header;
  if (header.length === 0) return fail(job, 'InvalidBatch : No data found in the uploaded CSV', []);
  let columns: Column[];
  try {
    columns = resolveColumns(job);
  } catch (error) {
    if (!(error instanceof JobFailure)) throw error;
    return fail(job, error.message, dataRows);
  }

  // Internal batches run in parallel, each 200-row chunk by chunk; only modelled with row-lock
  // contention (row-locks.ts), where chunks of one round hold their parents together.
  const batchSize = env.rowLocks?.settings().contention ? env.rowLocks.settings().batchSize : Math.max(dataRows.length, 1);
  const batches: string[][][] = [];
  for (let start = 0; start < dataRows.length; start += batchSize) batches.push(dataRows.slice(start, start + batchSize));
  for (let start = 0; batches.some((batch) => start < batch.length); start += CHUNK) {
    if (job.cancelled || (job.state as JobState) === 'Aborted') {
      job.unprocessed = batches.flatMap((batch) => batch.slice(start));
      return;
    }
    const transactions = batches.map(() => env.rowLocks?.begin());
    batches.forEach((batch, b) => {
      const chunk = batch.slice(start, start + CHUNK);
      if (chunk.length === 0) return;
      const results = saveRecords({ ...env, locks: transactions[b] }, chunk.map((row) => rowToItem(job, columns, row)), { allOrNone: false });
      results.forEach((result, i) => {
        if (result.ok) job.successful.push([result.id, String(result.created), ...chunk[i]!]);
        else job.failed.push([result.id ?? '', errorText(result.errors.slice(0, 1)), ...chunk[i]!]);
      });
    });
    await Promise.all(transactions.map((transaction) => transaction?.end({ hold: false })));
    job.processingMs = Date.now() - started;
    // Let other requests (polls, other calls) in between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  job.state = 'JobComplete';
  job.systemModstamp = formatDateTime(env.now().getTime());
  job.processingMs = Date.now() - started;
}
