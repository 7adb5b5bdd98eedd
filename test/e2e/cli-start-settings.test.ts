// `crm-sync start` checks the admin server's settings before it starts anything: a token too easy to
// guess, or TLS files it cannot read, exit 2 with one line naming the variable, and no embedded
// PostgreSQL was made first.
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { cliOutcome } from '../support/cli.ts';
import { embeddedJobEnv } from '../support/start-process.ts';

describe('crm-sync start with a refused admin setting', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-start-settings-'));
  chmodSync(parent, 0o755);
  const dataDir = path.join(parent, 'data');
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  // The configuration itself refuses a token under 32 characters; these are what only the admin server's
  // own check sees: a long token that is easy to guess, and certificate files that cannot be read.
  const REFUSED: Record<string, { env: NodeJS.ProcessEnv; line: string }> = {
    'a token of one repeated character': {
      env: { CRM_SYNC_ADMIN_TOKEN: 'a'.repeat(40) },
      line: 'CRM_SYNC_ADMIN_TOKEN: expected at least 8 different characters (make one with: openssl rand -base64 32); it has 1',
    },
    'TLS files that are not there': {
      env: { CRM_SYNC_ADMIN_TLS_CERT: path.join(parent, 'missing-cert.pem'), CRM_SYNC_ADMIN_TLS_KEY: path.join(parent, 'missing-key.pem') },
      line: `CRM_SYNC_ADMIN_TLS_CERT: cannot read the admin server's certificate from ${path.join(parent, 'missing-cert.pem')} (ENOENT)`,
    },
  };

  it.each(Object.entries(REFUSED))('%s: exit 2 with one line, before PostgreSQL or anything else starts', async (_name, refused) => {
    // The test's Temporal, so a start that did go on would not build or run a dev server.
    const env = { ...(await embeddedJobEnv(dataDir, { CRM_SYNC_DEMO: 'off', ...refused.env })), TEMPORAL_ADDRESS: inject('temporalAddress') };
    const outcome = await cliOutcome(env, ['start']);
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr).toBe(`${refused.line}\n`);
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
  });
});
