// Starts the fixture worker process (test/e2e/fixtures/worker-process.ts), resolving once it polls.
import { spawn, type ChildProcess } from 'node:child_process';
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
