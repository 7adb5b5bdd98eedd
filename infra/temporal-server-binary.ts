// Finds the Temporal server (`temporal-server`) and its SQL schema tool (`temporal-sql-tool`), in this order:
//   1. TEMPORAL_SERVER_PATH (with temporal-sql-tool beside it)   2. the per-user cache
//   3. `go install` into that cache (minutes the first time; the Go build cache of the CLI build is reused)
// Both come from one module, go.temporal.io/server, served by the Go module proxy. The schema tool carries
// the PostgreSQL schemas inside it (`--schema-name postgresql/v12/temporal`), so no schema files are needed.
import { mkdirSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findGo, isExecutable, runGoInstall } from './temporal-cli.ts';

/**
 * v1.29.1 is the server the Temporal CLI v1.5.1 embeds (its dev server), so the workflows behave the same on
 * both and the CLI's Go build cache makes this build quicker. v1.28.1 is tried only if it fails to build.
 */
export const TEMPORAL_SERVER_VERSIONS = ['v1.29.1', 'v1.28.1'] as const;
const MODULE = 'go.temporal.io/server';
/** What `go install` names them (the last path element) and what we name them in the cache. */
const PROGRAMS = [
  { pkg: 'cmd/server', built: 'server', name: 'temporal-server' },
  { pkg: 'cmd/tools/sql', built: 'sql', name: 'temporal-sql-tool' },
] as const;

export type FoundTemporalServer = { server: string; sqlTool: string; version?: string; source: 'TEMPORAL_SERVER_PATH' | 'cache' | 'go install' };

export type FindServerOptions = {
  explicitPath?: string;
  env?: NodeJS.ProcessEnv;
  cacheDir?: string;
  onProgress?: (message: string) => void;
  allowBuild?: boolean;
};

export function temporalServerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'commerce-crm-sync', 'temporal-server');
}

export async function findTemporalServer(options: FindServerOptions = {}): Promise<FoundTemporalServer | undefined> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? temporalServerCacheDir(env);
  const explicit = options.explicitPath ?? env.TEMPORAL_SERVER_PATH;
  if (explicit) {
    const sqlTool = path.join(path.dirname(explicit), 'temporal-sql-tool');
    for (const file of [explicit, sqlTool]) {
      if (!isExecutable(file)) throw new Error(`TEMPORAL_SERVER_PATH points at ${explicit}, but ${file} is not an executable file (temporal-sql-tool must sit beside temporal-server)`);
    }
    return { server: explicit, sqlTool, source: 'TEMPORAL_SERVER_PATH' };
  }
  for (const version of TEMPORAL_SERVER_VERSIONS) {
    const found = inDirectory(path.join(cacheDir, version));
    if (found) return { ...found, version, source: 'cache' };
  }
  if (options.allowBuild === false) return undefined;
  return buildWithGo(cacheDir, env, options.onProgress ?? (() => {}));
}

async function buildWithGo(cacheDir: string, env: NodeJS.ProcessEnv, onProgress: (m: string) => void): Promise<FoundTemporalServer | undefined> {
  const go = findGo(env);
  if (!go) {
    onProgress('No Temporal server found and no Go toolchain to build one.');
    return undefined;
  }
  const failures: string[] = [];
  for (const version of TEMPORAL_SERVER_VERSIONS) {
    const target = path.join(cacheDir, version);
    mkdirSync(target, { recursive: true });
    onProgress(`Building the Temporal server ${version} and its SQL tool with go install (several minutes the first time; cached in ${target})`);
    const result = await runGoInstall(go, PROGRAMS.map((program) => `${MODULE}/${program.pkg}@${version}`), target, env, onProgress);
    if (result.ok) {
      // `server` and `sql` say little in a process list: rename them once built.
      for (const program of PROGRAMS) {
        const built = path.join(target, program.built);
        if (isExecutable(built)) renameSync(built, path.join(target, program.name));
      }
      const found = inDirectory(target);
      if (found) {
        onProgress(`Temporal server ${version} built`);
        return { ...found, version, source: 'go install' };
      }
    }
    failures.push(`${version}: ${result.error ?? 'go install succeeded but the programs are missing'}`);
    onProgress(`go install of the Temporal server ${version} failed: ${result.error}`);
  }
  onProgress(`Could not build any Temporal server version:\n${failures.join('\n')}`);
  return undefined;
}

function inDirectory(directory: string): { server: string; sqlTool: string } | undefined {
  const [server, sqlTool] = PROGRAMS.map((program) => path.join(directory, program.name));
  return isExecutable(server!) && isExecutable(sqlTool!) ? { server: server!, sqlTool: sqlTool! } : undefined;
}
