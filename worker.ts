// The worker process: connects to Temporal and polls the task queue with our workflows and activities.
// Dependencies arrive from the caller (cli/start.ts, cli/worker.ts, tests) so nothing here reads config.
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type pg from 'pg';
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
};

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
    activities: { ...createActivities({ pool: options.pool, secretBox: options.secretBox, workerIdentity: identity }), ...options.extraActivities },
    shutdownGraceTime: '10 seconds',
  });
}
