// --json as the commands offer it: temporal-cli answers one JSON line; start and worker, which run until
// stopped and log as they go, do not offer --json (their logs follow LOG_FORMAT), so asking for it is a
// usage mistake (exit 2, one line) rather than a promise the command cannot keep.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliOutcome } from '../support/cli.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-json-'));
const { DATABASE_URL: _db, TEST_DATABASE_URL: _test, CRM_SYNC_OUTPUT: _output, ...inherited } = process.env;
const env: NodeJS.ProcessEnv = { ...inherited, CRM_SYNC_DATA_DIR: path.join(dir, 'data'), CRM_SYNC_DEMO: 'off', LOG_LEVEL: 'info' };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('crm-sync --json', () => {
  it('temporal-cli --json prints one JSON line with the path', async () => {
    const temporal = path.join(dir, 'temporal-cli');
    writeFileSync(temporal, '#!/bin/sh\n');
    chmodSync(temporal, 0o755);
    const outcome = await cliOutcome(env, ['temporal-cli', '--json'], { TEMPORAL_CLI_PATH: temporal });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toBe(`{"path":${JSON.stringify(temporal)}}\n`);
    // For a person (and for "$(crm-sync temporal-cli)"), the bare path as before.
    expect((await cliOutcome(env, ['temporal-cli'], { TEMPORAL_CLI_PATH: temporal })).stdout).toBe(`${temporal}\n`);
  });

  it.each(['start', 'worker'])('%s does not offer --json: exit 2, one line', async (command) => {
    const outcome = await cliOutcome(env, [command, '--json']);
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr).toBe("unknown option '--json'\n");
    expect(outcome.stdout).toBe('{"error":"unknown option \'--json\'"}\n');
  });
});
