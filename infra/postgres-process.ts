// The PostgreSQL programs as child processes: initdb once, then the server, stopped with SIGINT (fast
// shutdown). As root they run as the `postgres` user. Every failure, including a program that cannot
// be started at all (EACCES, ENOENT), comes back as a rejected promise with PostgreSQL's own output.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { PostgresBinaries } from './postgres-binaries.ts';
import type { PostgresUser } from './postgres-user.ts';

export type PostgresProgramOptions = {
  binaries: PostgresBinaries;
  clusterDir: string;
  /** Set when we are root: the programs run as this user. */
  user: PostgresUser | undefined;
  onOutput: (line: string) => void;
};

export type RunningPostgres = { child: ChildProcess; isRunning(): boolean; stop(): Promise<void> };

const READY = 'database system is ready to accept connections';

export async function initialiseCluster(options: PostgresProgramOptions & { superuser: string; password: string }): Promise<void> {
  const { clusterDir, user } = options;
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(clusterDir, user.uid, user.gid);
  // Beside the cluster (initdb wants the cluster folder empty), readable by PostgreSQL's user only.
  const passwordFile = path.join(path.dirname(clusterDir), `.initdb-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  try {
    const args = [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', `--username=${options.superuser}`, `--pwfile=${passwordFile}`, '--lc-messages=C'];
    const { code, signal, output } = await runToEnd(spawnAs(options, options.binaries.initdb, args), options.onOutput);
    if (code !== 0) throw new Error(`initdb failed (exit code ${code ?? signal}): ${output.slice(-2000)}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

export function startPostgres(options: PostgresProgramOptions & { port: number; flags: string[] }): Promise<RunningPostgres> {
  const child = spawnAs(options, options.binaries.postgres, ['-D', options.clusterDir, '-p', String(options.port), ...options.flags]);
  const isRunning = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  const running: RunningPostgres = {
    child,
    isRunning,
    async stop() {
      if (isRunning()) child.kill('SIGINT');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    let ready = false;
    forEachLine(child, (line) => {
      options.onOutput(line);
      if (!ready && line.includes(READY)) {
        ready = true;
        resolve(running);
      }
    });
    child.once('error', (error) => reject(new Error(`${options.binaries.postgres} could not be started: ${error.message}`, { cause: error })));
    child.once('close', (code, signal) => {
      if (!ready) reject(new Error(`PostgreSQL exited before accepting connections (exit code ${code ?? signal})`));
    });
  });
}

function spawnAs(options: PostgresProgramOptions, program: string, args: string[]): ChildProcess {
  return spawn(program, args, {
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
    // A folder the user can enter (the caller's own folder may be closed to it).
    cwd: path.dirname(options.clusterDir),
    env: postgresEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** PostgreSQL needs the locale and the path, not our secrets. Messages in English: we read them. */
function postgresEnvironment(): NodeJS.ProcessEnv {
  const kept = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE', 'TZ'];
  const env: NodeJS.ProcessEnv = Object.fromEntries(kept.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
  return { ...env, LC_MESSAGES: 'C' };
}

function forEachLine(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim()) onLine(line);
    });
    stream?.on('end', () => {
      if (pending.trim()) onLine(pending);
    });
  }
}

function runToEnd(child: ChildProcess, onLine: (line: string) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const output: string[] = [];
  forEachLine(child, (line) => {
    output.push(line);
    onLine(line);
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`${child.spawnfile} could not be started: ${error.message}`, { cause: error })));
    child.once('close', (code, signal) => resolve({ code, signal, output: output.join('\n') }));
  });
}
