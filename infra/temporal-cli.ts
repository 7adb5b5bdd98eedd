// Finds the Temporal CLI that provides the local dev server, in this order:
//   1. TEMPORAL_CLI_PATH        2. `temporal` on PATH
//   3. the per-user cache       4. `go install` into that cache (minutes the first time)
// When none of these works the caller falls back to the SDK's own download (see temporal-dev-server.ts).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/** v1.5.1 is the newest tag `go install` accepts; older tags are tried only if it fails to build. */
export const TEMPORAL_CLI_VERSIONS = ['v1.5.1', 'v1.4.1', 'v1.3.0'] as const;
const MODULE = 'github.com/temporalio/cli/cmd/temporal';

export type CliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'go install';
export type FoundCli = { path: string; source: CliSource; version?: string };

export type FindCliOptions = {
  explicitPath?: string;
  env?: NodeJS.ProcessEnv;
  cacheDir?: string;
  /** Progress lines for a person watching a long build. */
  onProgress?: (message: string) => void;
  /** Disable the go build step (used by tests and when the caller prefers the SDK download). */
  allowBuild?: boolean;
};

export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'commerce-crm-sync', 'temporal-cli');
}

export async function findTemporalCli(options: FindCliOptions = {}): Promise<FoundCli | undefined> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? temporalCliCacheDir(env);
  if (options.explicitPath) {
    if (!isExecutable(options.explicitPath)) {
      throw new Error(`TEMPORAL_CLI_PATH points at ${options.explicitPath}, which is not an executable file`);
    }
    return { path: options.explicitPath, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = searchPath('temporal', env.PATH ?? '');
  if (onPath) return { path: onPath, source: 'PATH' };
  for (const version of TEMPORAL_CLI_VERSIONS) {
    const cached = path.join(cacheDir, version, 'temporal');
    if (isExecutable(cached)) return { path: cached, source: 'cache', version };
  }
  if (options.allowBuild === false) return undefined;
  return buildWithGo(cacheDir, env, options.onProgress ?? (() => {}));
}

async function buildWithGo(cacheDir: string, env: NodeJS.ProcessEnv, onProgress: (m: string) => void): Promise<FoundCli | undefined> {
  const go = findGo(env);
  if (!go) {
    onProgress('No Temporal CLI found and no Go toolchain to build one.');
    return undefined;
  }
  const failures: string[] = [];
  for (const version of TEMPORAL_CLI_VERSIONS) {
    const target = path.join(cacheDir, version);
    mkdirSync(target, { recursive: true });
    onProgress(`Building the Temporal CLI ${version} with go install (a few minutes the first time; cached in ${target})`);
    const result = await runGoInstall(go, [`${MODULE}@${version}`], target, env, onProgress);
    if (result.ok && isExecutable(path.join(target, 'temporal'))) {
      onProgress(`Temporal CLI ${version} built`);
      return { path: path.join(target, 'temporal'), source: 'go install', version };
    }
    failures.push(`${version}: ${result.error}`);
    onProgress(`go install of ${version} failed: ${result.error}`);
  }
  onProgress(`Could not build any Temporal CLI version:\n${failures.join('\n')}`);
  return undefined;
}

/** The Go toolchain on PATH, else where the official tarball puts it. */
export function findGo(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return searchPath('go', env.PATH ?? '') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/** `go install` of `packages` (each `path@version`, one module) into `gobin`, reporting progress every 10 s. */
export function runGoInstall(
  go: string,
  packages: string[],
  gobin: string,
  env: NodeJS.ProcessEnv,
  onProgress: (m: string) => void,
): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve) => {
    // -v prints each package as it compiles: the count is our progress indicator.
    const child = spawn(go, ['install', '-v', ...packages], {
      env: { ...env, GOBIN: gobin, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let compiled = 0;
    let downloaded = 0;
    let lastReport = Date.now();
    const tail: string[] = [];
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.startsWith('go: downloading')) downloaded += 1;
      else compiled += 1;
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        onProgress(`  ... ${downloaded} modules downloaded, ${compiled} packages compiled`);
      }
    });
    child.on('error', (error) => resolve({ ok: false, error: error.message }));
    child.on('close', (code) => {
      resolve(code === 0 ? { ok: true } : { ok: false, error: `exit code ${code}: ${tail.slice(-5).join(' | ')}` });
    });
  });
}

export function searchPath(command: string, pathVariable: string): string | undefined {
  for (const directory of pathVariable.split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function isExecutable(file: string): boolean {
  try {
    if (!existsSync(file)) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
