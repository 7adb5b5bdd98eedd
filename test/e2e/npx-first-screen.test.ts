// A newcomer's first screen: `npx crm-sync ...` in the checkout with the machine's own npm and Node
// (20 on this VM) first on the PATH, as a shell has them. The first time, npx installs the project into
// its cache (a link) and npm checks `engines` against the Node npm runs on, not the Node 24 from
// node_modules the command then runs on: that printed ten lines of EBADENGINE (issue #26 defect 10).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.join(import.meta.dirname, '..', '..');
const SYSTEM_NODE = '/usr/bin/node';
const SYSTEM_NPX = '/usr/bin/npx';
const systemNodeMajor = existsSync(SYSTEM_NODE) ? Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]) : undefined;

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

// Only what a login shell would have: none of the npm_* variables `npm test` sets, and no node_modules/.bin.
const shellEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: process.env.HOME, LANG: 'C.UTF-8', PATH: '/usr/bin:/bin', ...extra });

describe.runIf(existsSync(SYSTEM_NPX) && systemNodeMajor !== undefined && systemNodeMajor < 22)('the first screen with the machine\'s older Node on the PATH', () => {
  const npmCache = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-npx-cache-'));
  afterAll(() => rmSync(npmCache, { recursive: true, force: true }));

  it('npx crm-sync --help, first run (empty npx cache): the usage, exit 0, no EBADENGINE warning', async () => {
    const result = await run(SYSTEM_NPX, ['crm-sync', '--help'], shellEnv({ npm_config_cache: npmCache, npm_config_offline: 'true', npm_config_update_notifier: 'false' }));
    expect(result.stderr.split('\n').filter((line) => line.includes('EBADENGINE'))).toEqual([]);
    expect(result.stdout).toMatch(/^Usage: crm-sync /);
    expect(result.code).toBe(0);
  });

  it('the bin run by that older Node itself: one line saying what it needs, exit 1, no stack', async () => {
    const result = await run(SYSTEM_NODE, ['bin/crm-sync.ts', '--help'], shellEnv());
    expect(result.stderr).toMatch(/^crm-sync needs Node\.js 22\.18 or newer \(24 recommended\), and \/usr\/bin\/node is Node\.js 2\d\.\d+\.\d+: run `npm install` .*\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
  });
});
