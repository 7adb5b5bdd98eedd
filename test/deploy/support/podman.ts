// Container helpers for the deploy tests (rootful podman, runc): whether podman is here, the base image
// (scripts/build-base-image.sh) and the crm-sync image built once per content hash, and containers run,
// inspected, stopped, killed and read. Every call goes through the podman CLI, as an operator's would.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
export const BASE_IMAGE = 'localhost/crm-sync-base:bookworm';

/**
 * Why the container tests cannot run here, or undefined when podman answers. On CI (CI set) a missing
 * podman throws instead: a CI run whose container tests all skipped would pass without testing the image.
 */
export async function podmanMissing(): Promise<string | undefined> {
  let why: string;
  try {
    await run('podman', ['version', '--format', '{{.Client.Version}}']);
    return undefined;
  } catch (error) {
    why = `podman is not usable here (${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not installed' : (error as Error).message.split('\n')[0]}): run scripts/setup-podman.sh as root`;
  }
  if (process.env.CI) throw new Error(`The container tests cannot run on this CI machine: ${why}`);
  return why;
}

/** `env` is added to podman's own environment (for `--env NAME`, which takes the value from there). */
export async function podman(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<string> {
  const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 120_000, ...(options.env ? { env: { ...process.env, ...options.env } } : {}) });
  return stdout.trim();
}

/** A long podman (or script) command whose output is shown as it goes (builds take minutes). */
export function streamed(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with code ${code}`))));
  });
}

export async function imageExists(name: string): Promise<boolean> {
  try {
    await podman(['image', 'exists', name]);
    return true;
  } catch {
    return false;
  }
}

/** The Debian-built base (the script skips the work when it exists). */
export async function ensureBaseImage(): Promise<string> {
  if (!(await imageExists(BASE_IMAGE))) await streamed('bash', [path.join(REPO_ROOT, 'scripts', 'build-base-image.sh'), BASE_IMAGE]);
  return BASE_IMAGE;
}

/**
 * The CA bundle npm trusts on this machine (npm's cafile, NODE_EXTRA_CA_CERTS or the system bundle),
 * handed to the build as the secret `ca-bundle`: a network that intercepts TLS is then trusted inside too.
 */
export function caBundle(): string | undefined {
  const candidates = [process.env.npm_config_cafile, process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'];
  return candidates.find((file): file is string => Boolean(file) && existsSync(file!));
}

/**
 * Whether .dockerignore leaves a path (relative to the repository, `/`-separated) out of the build
 * context, with the builder's glob rules: `*` and `?` stay within one path segment, a leading `**` and slash matches
 * any number of directories. Negations (`!`) are not supported (this file has none).
 */
function ignoredByDockerignore(): (relativePath: string) => boolean {
  const patterns = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const toRegExp = (pattern: string) => {
    let source = '';
    for (let i = 0; i < pattern.length; i += 1) {
      if (pattern.startsWith('**/', i)) {
        source += '(?:.*/)?';
        i += 2;
      } else if (pattern.startsWith('**', i)) {
        source += '.*';
        i += 1;
      } else if (pattern[i] === '*') source += '[^/]*';
      else if (pattern[i] === '?') source += '[^/]';
      else source += pattern[i]!.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${source}$`);
  };
  const matchers = patterns.map(toRegExp);
  return (relativePath) => matchers.some((matcher) => matcher.test(relativePath));
}

/** A hash of everything the image is built from (the build context as .dockerignore leaves it, the Dockerfile, the base's name). */
export function contextHash(baseImage: string): string {
  const hash = createHash('sha256').update(baseImage);
  const ignored = ignoredByDockerignore();
  const walk = (dir: string, top: boolean) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (ignored(path.relative(REPO_ROOT, file).split(path.sep).join('/')) && !(top && (name === 'Dockerfile' || name === '.dockerignore'))) continue;
      if (name === 'node_modules' || name === '.git') continue;
      const stat = statSync(file);
      if (stat.isDirectory()) walk(file, false);
      else if (stat.isFile()) hash.update(path.relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  };
  walk(REPO_ROOT, true);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The crm-sync image for the current sources, tagged by their hash: built only when no image has that
 * tag yet (a re-run with the same sources takes seconds). `--network host`: podman's default network
 * reaches the registry here too, but host networking needs no bridge or firewall set-up on a CI box.
 */
export async function ensureCrmSyncImage(baseImage: string): Promise<string> {
  const tag = `localhost/crm-sync:test-${contextHash(baseImage)}`;
  if (await imageExists(tag)) return tag;
  const ca = caBundle();
  await streamed('podman', ['build', '--network', 'host', '--build-arg', `BASE_IMAGE=${baseImage}`, ...(ca ? ['--secret', `id=ca-bundle,src=${ca}`] : []), '-t', tag, '-f', path.join(REPO_ROOT, 'Dockerfile'), REPO_ROOT]);
  // Earlier sources' images removed so they do not pile up; one a container still uses stays (no --force).
  const older = (await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', '--filter', 'reference=localhost/crm-sync:test-*'])).split('\n').filter((name) => name && name !== tag);
  if (older.length) await podman(['rmi', ...older]).catch(() => undefined);
  return tag;
}

export type RunOptions = { image: string; name: string; env?: Record<string, string>; network?: string; hostname?: string; args?: string[] };

/**
 * Starts a detached container; resolves with its name. The environment's values (secret key, admin token,
 * database URL with its password) go to podman through its own environment and `--env NAME`, so they are
 * neither in the process list nor in the "Command failed: podman run ..." of an error.
 */
export async function runContainer(options: RunOptions): Promise<string> {
  const env = Object.keys(options.env ?? {}).flatMap((key) => ['--env', key]);
  await podman(['run', '--detach', '--name', options.name, ...(options.network ? ['--network', options.network] : []), ...(options.hostname ? ['--hostname', options.hostname] : []), ...env, options.image, ...(options.args ?? [])], { env: options.env });
  return options.name;
}

export const execIn = (name: string, command: string[]) => podman(['exec', name, ...command]);

/** stdout and stderr of the container so far, interleaved as podman keeps them. */
export async function containerLogs(name: string): Promise<string> {
  const { stdout, stderr } = await run('podman', ['logs', name], { maxBuffer: 64 * 1024 * 1024 });
  return `${stdout}${stderr}`;
}

/** `podman stop -t seconds`: SIGTERM (the image's STOPSIGNAL), then SIGKILL if still running after `seconds`. */
export const stopContainer = (name: string, seconds: number) => podman(['stop', '--time', String(seconds), name], { timeoutMs: (seconds + 60) * 1000 });
export const killContainer = (name: string, signal = 'KILL') => podman(['kill', '--signal', signal, name]);

export async function containerState(name: string): Promise<{ running: boolean; exitCode: number }> {
  const [running, exitCode] = (await podman(['inspect', '--format', '{{.State.Running}} {{.State.ExitCode}}', name])).split(' ');
  return { running: running === 'true', exitCode: Number(exitCode) };
}

export async function removeContainer(name: string): Promise<void> {
  await podman(['rm', '--force', '--ignore', name]).catch(() => undefined);
}
