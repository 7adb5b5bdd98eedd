// The worker process: connects to Temporal and polls the task queue with our workflows and activities.
// Dependencies arrive from the caller (cli/start.ts, cli/worker.ts, tests) so nothing here reads config.
import { connectionLogAttributes } from './activities/log-attributes.ts';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type pg from 'pg';
import type { SyncMetrics } from './metrics/sync-metrics.ts';
import type { SecretBox } from './store/secret-box.ts';
import { createActivities } from './activities/index.ts';
import { bundleWorkflowsInChild } from './temporal/workflow-bundle.ts';

export const WORKFLOWS_PATH = path.join(import.meta.dirname, 'workflows', 'index.ts');

export type SyncWorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  pool: pg.Pool;
  /** Opens connection secrets inside activities; workflows only ever see connection ids. */
  secretBox: SecretBox;
  identity?: string;
  /** Tests add their own workflows and activities; production uses the defaults. */
  workflowsPath?: string;
  extraActivities?: Record<string, (...args: any[]) => Promise<unknown>>;
  /** How much this worker runs at once (default DEFAULT_WORKER_LIMITS); from CRM_SYNC_MAX_CONCURRENT_* in production. */
  limits?: Partial<WorkerLimits>;
  /** Where the activities count pages and runs (served on the admin server's /metrics). */
  metrics?: SyncMetrics;
  /** The console's address as people reach it, for links in alerts (default: CRM_SYNC_CONSOLE_URL). */
  consoleUrl?: string;
  /** After shutdown is asked, how long running activities may finish before they are cancelled (CRM_SYNC_SHUTDOWN_GRACE). */
  shutdownGraceMs?: number;
};

/** The drain grace when none is given: CRM_SYNC_SHUTDOWN_GRACE's default (config/config.ts). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export type WorkerLimits = {
  /** Activities at once: each may hold a PostgreSQL connection and several commerce and CRM sockets. */
  maxConcurrentActivities: number;
  /** Workflow tasks at once (at least 2: Temporal polls a sticky and a normal queue). */
  maxConcurrentWorkflowTasks: number;
};

export const DEFAULT_WORKER_LIMITS: WorkerLimits = { maxConcurrentActivities: 8, maxConcurrentWorkflowTasks: 16 };

/** The Worker.create options that bound what one worker process does at once. */
export function workerConcurrencyOptions(limits: Partial<WorkerLimits> = {}) {
  return {
    maxConcurrentActivityTaskExecutions: limits.maxConcurrentActivities ?? DEFAULT_WORKER_LIMITS.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: limits.maxConcurrentWorkflowTasks ?? DEFAULT_WORKER_LIMITS.maxConcurrentWorkflowTasks,
  };
}

export function defaultWorkerIdentity(): string {
  return `${process.pid}@${os.hostname()}`;
}

export async function createSyncWorker(options: SyncWorkerOptions): Promise<Worker> {
  const identity = options.identity ?? defaultWorkerIdentity();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity,
    workflowBundle: await bundleWorkflowsInChild(options.workflowsPath ?? WORKFLOWS_PATH, (level, message) => Runtime.instance().logger[level](message, { sdkComponent: 'bundler' })),
    activities: { ...createActivities({ pool: options.pool, secretBox: options.secretBox, workerIdentity: identity, metrics: options.metrics, consoleUrl: options.consoleUrl ?? process.env.CRM_SYNC_CONSOLE_URL }), ...options.extraActivities },
    // Activity log lines carry the connection id beside the workflow and run ids.
    interceptors: { activity: [connectionLogAttributes] },
    // Activities still running then are cancelled; Temporal retries them on another worker.
    shutdownGraceTime: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    ...workerConcurrencyOptions(options.limits),
  });
}
