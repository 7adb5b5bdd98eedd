import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTemporalCli, temporalCliCacheDir } from '../../infra/temporal-cli.ts';

function fakeExecutable(dir: string, name = 'temporal'): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\necho fake\n');
  chmodSync(file, 0o755);
  return file;
}

describe('findTemporalCli', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const cacheDir = path.join(root, 'cache');

  it('prefers TEMPORAL_CLI_PATH, and says so when it is not executable', async () => {
    const explicit = fakeExecutable(path.join(root, 'explicit'));
    await expect(findTemporalCli({ explicitPath: explicit, env: { PATH: '' }, cacheDir, allowBuild: false })).resolves.toEqual({
      path: explicit,
      source: 'TEMPORAL_CLI_PATH',
    });
    await expect(findTemporalCli({ explicitPath: path.join(root, 'missing'), env: {}, cacheDir })).rejects.toThrow(/TEMPORAL_CLI_PATH points at .*missing/);
  });

  it('then looks on PATH, then in the per-user cache', async () => {
    const onPath = fakeExecutable(path.join(root, 'bin'));
    expect(await findTemporalCli({ env: { PATH: path.dirname(onPath) }, cacheDir, allowBuild: false })).toMatchObject({ source: 'PATH', path: onPath });
    expect(await findTemporalCli({ env: { PATH: '' }, cacheDir, allowBuild: false })).toBeUndefined();
    const cached = fakeExecutable(path.join(cacheDir, 'v1.5.1'));
    expect(await findTemporalCli({ env: { PATH: '' }, cacheDir, allowBuild: false })).toEqual({ path: cached, source: 'cache', version: 'v1.5.1' });
  });

  it('keeps its cache per user, honouring XDG_CACHE_HOME', () => {
    expect(temporalCliCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/commerce-crm-sync/temporal-cli');
    expect(temporalCliCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'commerce-crm-sync', 'temporal-cli'));
  });
});
