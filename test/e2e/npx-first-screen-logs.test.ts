// What a person at a terminal sees from crm-sync's logs (issue #26 defect 9): readable lines, not JSON.
// `script` runs the command under a pseudo-terminal, as a shell does; the same command with its output
// piped (a log shipper, a file) still writes JSON lines.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRM_SYNC_BIN } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const SCRIPT = '/usr/bin/script';
const ESC = String.fromCharCode(27);
const plain = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '').replaceAll('\r', '');

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe.runIf(existsSync(SCRIPT))('crm-sync logs on a terminal', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { LOG_FORMAT: _unset, ...inherited } = process.env;
    env = { ...inherited, DATABASE_URL: database.url, CRM_SYNC_SECRET_KEY: randomBytes(32).toString('base64'), CRM_SYNC_DEMO: 'off', LOG_LEVEL: 'info' };
  });
  afterAll(() => database?.drop());

  it('are readable lines under a pseudo-terminal: time, level, message', async () => {
    const command = `${process.execPath} ${CRM_SYNC_BIN} migrate`;
    const result = await run(SCRIPT, ['-qec', command, '/dev/null'], env);
    expect(result.code).toBe(0);
    const lines = plain(result.stdout).split('\n').filter(Boolean);
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: Database schema is up to date$/));
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('stay JSON when the output is not a terminal', async () => {
    const result = await run(process.execPath, [CRM_SYNC_BIN, 'migrate'], env);
    expect(result.code).toBe(0);
    const entries = result.stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; level: number });
    expect(entries).toContainEqual(expect.objectContaining({ level: 30, msg: 'Database schema is up to date' }));
  });

  it('LOG_FORMAT=json forces JSON on a terminal too', async () => {
    const result = await run(SCRIPT, ['-qec', `${process.execPath} ${CRM_SYNC_BIN} migrate`, '/dev/null'], { ...env, LOG_FORMAT: 'json' });
    expect(result.code).toBe(0);
    const lines = plain(result.stdout).split('\n').filter(Boolean);
    expect(lines).toContainEqual(expect.stringMatching(/^\{"level":30,.*"msg":"Database schema is up to date"\}$/));
  });
});

