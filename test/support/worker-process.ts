// Starts worker processes for tests: the fixture worker (test/e2e/fixtures/worker-process.ts), resolving
// once it polls, or the real `crm-sync worker` command.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const WORKER_SCRIPT = path.join(import.meta.dirname, '..', 'e2e', 'fixtures', 'worker-process.ts');

/** `output`: every line the worker writes (stdout and stderr) is kept there, for a test that reads its logs. */
export function startWorkerProcess(name: string, env: Record<string, string>, output?: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER_SCRIPT], { env: { ...process.env, ...env, WORKER_NAME: name }, stdio: ['ignore', 'pipe', output ? 'pipe' : 'inherit'] });
  if (output) readline.createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output?.push(line);
      if (line.startsWith('ready ')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} exited early with code ${code}`)));
  });
}

export function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');

/**
 * `crm-sync worker` as an operator starts it (JSON logs at info), on a database and task queue of the
 * test's own, with the test harness's secret key; resolves once it logs "Worker running". Every line it
 * writes (stdout and stderr) goes to `onLine`.
 */
export async function startCliWorker(options: { databaseUrl: string; temporalAddress: string; taskQueue: string; onLine: (line: string) => void; freePort: () => Promise<number> }): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      CRM_SYNC_TASK_QUEUE: options.taskQueue,
      CRM_SYNC_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'), // the key of the harness's TEST_SECRET_BOX
      CRM_SYNC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'crm-sync-cli-worker-')),
      CRM_SYNC_ADMIN_PORT: String(await options.freePort()),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let running = false;
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      if (line.includes('"Worker running"')) running = true;
      options.onLine(line);
    });
  }
  const deadline = Date.now() + 120_000;
  while (!running) {
    if (child.exitCode !== null) throw new Error(`crm-sync worker exited early with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('crm-sync worker did not log "Worker running" within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}
