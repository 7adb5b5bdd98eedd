// The commands as a root user runs them in a checkout only root can enter (cloned into /root, or into
// a `mktemp -d` folder): the same start path as `npm start` (openDatabase -> embedded PostgreSQL),
// with node_modules and the data directory both closed to the `postgres` user PostgreSQL runs as.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER_ROOT } from '../../infra/postgres-cluster-location.ts';
import { embeddedJobEnv } from '../support/start-process.ts';

const REPO = path.join(import.meta.dirname, '..', '..');

describe.runIf(process.getuid?.() === 0)('crm-sync in a checkout only root can enter (run as root)', () => {
  let rootOnly: string;
  let checkout: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    rootOnly = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-root-only-'));
    checkout = path.join(rootOnly, 'commerce-crm-sync');
    mkdirSync(checkout);
    // A checkout of this tree with its node_modules (hard links: quick, and nothing here writes to them).
    for (const entry of readdirSync(REPO)) {
      if (entry === '.git' || entry === '.data') continue;
      execFileSync('cp', ['-a', '--link', path.join(REPO, entry), checkout]);
    }
    env = await embeddedJobEnv('.data', { LOG_LEVEL: 'info' }); // the default data dir, inside the checkout
  });

  afterAll(() => {
    const locationFile = path.join(checkout, '.data', 'postgres', 'cluster-location');
    if (existsSync(locationFile)) rmSync(path.dirname(readFileSync(locationFile, 'utf8').trim()), { recursive: true, force: true });
    rmSync(rootOnly, { recursive: true, force: true });
  });

  function crmSync(...args: string[]) {
    const result = spawnSync(process.execPath, ['bin/crm-sync.ts', ...args], { cwd: checkout, env, encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('`crm-sync migrate` then `crm-sync heartbeats` run on the embedded PostgreSQL, with no EACCES', () => {
    expect(statSync(rootOnly).mode & 0o777).toBe(0o700);
    const migrate = crmSync('migrate');
    expect(migrate.stderr).not.toMatch(/EACCES|Permission denied/);
    expect(migrate.status, migrate.stderr).toBe(0);
    expect(migrate.stderr).toContain('Database schema is up to date');

    // Where the cluster went is recorded and printed, under the shared root, naming this checkout's data.
    const clusterDir = readFileSync(path.join(checkout, '.data', 'postgres', 'cluster-location'), 'utf8').trim();
    expect(path.dirname(path.dirname(clusterDir))).toBe(DEFAULT_CLUSTER_ROOT);
    expect(readFileSync(path.join(path.dirname(clusterDir), 'data-directory'), 'utf8').trim()).toBe(path.join(checkout, '.data'));
    expect(migrate.stderr).toContain(clusterDir);
    expect(existsSync(path.join(clusterDir, 'PG_VERSION'))).toBe(true);
    // Stopped cleanly: no postmaster left holding the cluster.
    expect(existsSync(path.join(clusterDir, 'postmaster.pid'))).toBe(false);

    // A second command finds the same, migrated cluster and queries it.
    const heartbeats = crmSync('heartbeats', '--json');
    expect(heartbeats.status, heartbeats.stderr).toBe(0);
    expect(JSON.parse(heartbeats.stdout)).toEqual({ total: 0, latest: [] });
    expect(existsSync(path.join(clusterDir, 'postmaster.pid'))).toBe(false);
  });
});
