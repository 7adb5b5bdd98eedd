// Bulk API 2.0 ingest jobs: what each holds from creation through its results.
import { createIdFactory } from './ids.ts';
import type { SandboxField, SandboxObject } from './schema.ts';

export type JobState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';
export type IngestOperation = 'insert' | 'update' | 'upsert' | 'delete' | 'hardDelete';

export type IngestJob = {
  id: string;
  object: SandboxObject;
  operation: IngestOperation;
  externalIdField: SandboxField | undefined;
  state: JobState;
  createdDate: string;
  systemModstamp: string;
  apiVersion: string;
  lineEnding: 'LF' | 'CRLF';
  columnDelimiter: string;
  data: string | undefined;
  /** The uploaded header, repeated in every result file after the sf__ columns. */
  header: string[];
  successful: string[][];
  failed: string[][];
  unprocessed: string[][];
  errorMessage: string | undefined;
  processingMs: number;
  /** Set when the sandbox is reset: a job still being processed stops writing. */
  cancelled: boolean;
};

export function createJobs() {
  const newId = createIdFactory();
  const jobs = new Map<string, IngestJob>();
  return {
    newId: () => newId('750'),
    add(job: IngestJob) {
      jobs.set(job.id, job);
    },
    get: (id: string) => jobs.get(id),
    delete: (id: string) => jobs.delete(id),
    list: () => [...jobs.values()],
    clear() {
      for (const job of jobs.values()) job.cancelled = true;
      jobs.clear();
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
