// The demo (`crm-sync start` with CRM_SYNC_DEMO=on) as the demo's tests run it: a fresh data directory, the
// job in its own process group (killed with its children when the file's tests end), and the embedded
// PostgreSQL it starts, for reading what the demo stored.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll } from 'vitest';
import { embeddedJobEnv, startJob, waitFor, type StartedJob } from './start-process.ts';

/** One alert as the demo's receiver prints it on stdout (cli/demo-alerts-receiver.ts). */
export const ALERT_LINE = /^\[alert → (slack|teams)\] \S.*: \S/;

export type DemoJobs = {
  dataDir: string;
  /** The environment of a demo start on this data directory (`extra` on top, e.g. CRM_SYNC_DEMO_CRMS). */
  env(extra?: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv>;
  /** Starts the demo; the job is killed (its whole group) after the file's tests. */
  start(env: NodeJS.ProcessEnv): StartedJob;
  /** The demo's embedded PostgreSQL; the caller ends it before the demo stops (its shutdown stops the server). */
  openPool(env: NodeJS.ProcessEnv): pg.Pool;
};

/** Call at the top of a test file: registers the clean-up (DEBUG_DEMO_TEST=1 prints what the last job said). */
export function demoJobs(prefix: string): DemoJobs {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dataDir, 0o755);
  const jobs: StartedJob[] = [];
  afterAll(() => {
    const last = jobs.at(-1);
    if (last && process.env.DEBUG_DEMO_TEST) console.log([...last.stdout.slice(-10), ...last.logs.slice(-15).map((entry) => JSON.stringify(entry).slice(0, 400))].join('\n'));
    for (const { child } of jobs) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    env: (extra = {}) => embeddedJobEnv(dataDir, { CRM_SYNC_DEMO: 'on', ...extra }),
    start(env) {
      const job = startJob(env);
      jobs.push(job);
      return job;
    },
    openPool(env) {
      const password = readFileSync(path.join(dataDir, 'postgres', 'password'), 'utf8').trim();
      const opened = new pg.Pool({ connectionString: `postgres://postgres:${password}@127.0.0.1:${env.CRM_SYNC_EMBEDDED_PG_PORT}/postgres`, max: 1 });
      // The demo's shutdown stops the server under an idle client: closed before each stop, this is only a safety net.
      opened.on('error', () => {});
      return opened;
    },
  };
}

/**
 * The job's own Temporal dev server (its port is in the job's environment), once its worker runs: for a
 * test to look at the runs or to steer the demo's schedules. The caller closes it.
 */
export async function jobTemporal(env: NodeJS.ProcessEnv, job: StartedJob): Promise<{ client: Client; close(): Promise<void> }> {
  await waitFor('the worker to run', () => job.logs.some((entry) => String(entry.msg).startsWith('Worker running')) || undefined, 120_000);
  const connection = await Connection.connect({ address: `127.0.0.1:${env.CRM_SYNC_TEMPORAL_PORT}` });
  return { client: new Client({ connection, namespace: env.TEMPORAL_NAMESPACE ?? 'default' }), close: () => connection.close() };
}

/**
 * Runs every schedule whose id starts with `idPrefix` every `every` (e.g. '5s'): the demo's intervals are
 * a person's pace, and a test need not wait for them. Returns how many schedules it changed.
 */
export async function scheduleEvery(client: Client, idPrefix: string, every: string): Promise<number> {
  let updated = 0;
  for await (const schedule of client.schedule.list()) {
    if (!schedule.scheduleId.startsWith(idPrefix)) continue;
    await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({ ...previous, spec: { intervals: [{ every }] } }));
    updated += 1;
  }
  return updated;
}
