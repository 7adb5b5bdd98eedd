// `crm-sync start` as a user runs it, for the tests of the whole job: its own process group (like a
// terminal job, so a Ctrl-C or a kill reaches every process in it), its stdout lines and JSON logs.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');

/** The environment of `crm-sync start` on embedded defaults in `dataDir`, on free ports, logging JSON. */
export async function embeddedJobEnv(dataDir: string, extra: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CRM_SYNC_DATA_DIR: dataDir,
    CRM_SYNC_EMBEDDED_PG_PORT: String(await freePort()),
    CRM_SYNC_TEMPORAL_PORT: String(await freePort()),
    CRM_SYNC_TEMPORAL_UI_PORT: String(await freePort()),
    CRM_SYNC_ADMIN_PORT: String(await freePort()),
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  return env;
}

export type StartedJob = { child: ChildProcess; stdout: string[]; logs: Record<string, unknown>[]; exited: Promise<number | null> };

export function startJob(env: NodeJS.ProcessEnv): StartedJob {
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stdout: string[] = [];
  const logs: Record<string, unknown>[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line));
    } catch {
      logs.push({ msg: line });
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, logs, exited };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Processes whose command line mentions the data directory (the dev server's db file, postgres -D). */
export function processesUsing(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dataDir)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}
