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

/** Test steering of job processing: hold closed jobs (a slow org), or make the next one fail as a whole. */
export type JobProcessing = { paused: boolean; failNext: string | undefined };

export function createJobs() {
  const newId = createIdFactory();
  const jobs = new Map<string, IngestJob>();
  const processing: JobProcessing = { paused: false, failNext: undefined };
  let held: (() => void)[] = [];
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
      processing.paused = false;
      processing.failNext = undefined;
      held = [];
    },
    /** Runs `start` for a closed job now (off the request path), or once processing is resumed. */
    whenProcessing(start: () => void) {
      if (processing.paused) held.push(start);
      else setImmediate(start);
    },
    /** The forced failure message for the next job to start processing, used once. */
    takeForcedFailure(): string | undefined {
      const message = processing.failNext;
      processing.failNext = undefined;
      return message;
    },
    processing: (): JobProcessing & { held: number } => ({ ...processing, held: held.length }),
    steer(change: Partial<JobProcessing>) {
      if (change.failNext !== undefined) processing.failNext = change.failNext || undefined;
      if (change.paused !== undefined) processing.paused = change.paused;
      if (!processing.paused) {
        const release = held;
        held = [];
        for (const start of release) setImmediate(start);
      }
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
