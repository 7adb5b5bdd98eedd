// PostgreSQL refuses to run as root. As root we run it as the system user `postgres` (created if the
// machine lacks it), and everything it touches must be reachable by that user: these helpers ask the
// kernel (by running a tiny command as that user) rather than guessing from mode bits.
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';

export type PostgresUser = { name: string; uid: number; gid: number };

const USER = 'postgres';

/** The user PostgreSQL runs as when we are root; undefined when we are not root (it runs as us). */
export function postgresUserIfRoot(): PostgresUser | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  return lookUp() ?? create();
}

function lookUp(): PostgresUser | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name: USER, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

function create(): PostgresUser {
  try {
    spawnSync('groupadd', ['--system', USER], { stdio: 'ignore' }); // may already exist: useradd says if not
    execFileSync('useradd', ['--system', '--gid', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const detail = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    throw new Error(
      `PostgreSQL cannot run as root, and the user "${USER}" to run it as could not be created (${detail}). ` +
        `Create it (useradd --system ${USER}), run crm-sync as an ordinary user, or set DATABASE_URL to an existing PostgreSQL.`,
    );
  }
  const user = lookUp();
  if (!user) throw new Error(`The user "${USER}" was created but cannot be looked up (id -u ${USER}); set DATABASE_URL to an existing PostgreSQL instead.`);
  return user;
}

/** Can `user` enter `dir` (execute permission on it and on every folder above it)? */
export function canEnter(user: PostgresUser, dir: string): boolean {
  return runsAs(user, '/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir]);
}

/** Can `user` run `binary` (here: `postgres --version`)? */
export function canExecute(user: PostgresUser, binary: string): boolean {
  return runsAs(user, binary, ['--version']);
}

function runsAs(user: PostgresUser, command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { uid: user.uid, gid: user.gid, cwd: '/', stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}
