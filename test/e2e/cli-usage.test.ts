// Usage mistakes on the real command line: each exits 2 with exactly one line on stderr naming the flag
// or variable and what it takes, before anything is opened (no database, no Temporal, no CRM: none is
// given to reach). Under --json the same line is {"error": ...} on stdout.
// Every case is a process of its own: they run a few at a time (describe.concurrent: none shares
// anything but the empty data directory, which none writes), and the processes share Node's compile cache
// (NODE_COMPILE_CACHE), so each does not strip and compile the same TypeScript again (half of a start).
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliOutcome } from '../support/cli.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-usage-'));
const { DATABASE_URL: _db, TEST_DATABASE_URL: _test, CRM_SYNC_OUTPUT: _output, COMMERCE_CLIENT_SECRET: _c, SALESFORCE_CLIENT_SECRET: _s, ...inherited } = process.env;
const env: NodeJS.ProcessEnv = { ...inherited, CRM_SYNC_DATA_DIR: dataDir, CRM_SYNC_DEMO: 'off', LOG_LEVEL: 'info', NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'crm-sync-test-compile-cache') };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Every flag connect needs for a Salesforce connection, so the mistake under test is the only one. */
const connect = ['connect', '--name', 'acme', '--commerce-url', 'https://api.example', '--commerce-auth-url', 'https://auth.example', '--commerce-client-id', 'c1', '--commerce-org', 'org-1', '--salesforce-login-url', 'https://login.example', '--salesforce-client-id', 'sf-1'];
const secrets = { COMMERCE_CLIENT_SECRET: 'commerce-secret-1', SALESFORCE_CLIENT_SECRET: 'salesforce-secret-1' };

type Mistake = { args: string[]; line: string | RegExp; extraEnv?: NodeJS.ProcessEnv };

const MISTAKES: Record<string, Mistake> = {
  'an unknown entity': { args: ['backfill', 'acme', '--entities', 'buyer,invoice'], line: /^--entities: "invoice" is not an entity; choose from buyer, contact, offer, / },
  'a list with no entity': { args: ['preview', 'acme', '--entities', ','], line: /^--entities: no entity given; choose from buyer, / },
  'a flag without its value': { args: ['backfill', 'acme', '--entities'], line: '--entities: needs a value <list>' },
  '--from garbage': { args: ['backfill', 'acme', '--from', 'garbage'], line: '--from: "garbage" is not a time; use ISO 8601, like 2026-01-01 or 2026-01-01T09:30:00Z' },
  '--from later than --to': { args: ['backfill', 'acme', '--from', '2026-02-01', '--to', '2026-01-01'], line: '--from (2026-02-01T00:00:00.000Z) is later than --to (2026-01-01T00:00:00.000Z); give a --from on or before --to' },
  'a month 13': { args: ['backfill', 'acme', '--to', '2026-13-01'], line: '--to: "2026-13-01" is not a time; use ISO 8601, like 2026-01-01 or 2026-01-01T09:30:00Z' },
  '-n abc (heartbeats)': { args: ['heartbeats', '-n', 'abc'], line: '--limit (-n): "abc" is not a whole number 1 or more' },
  '-n abc (runs)': { args: ['runs', 'acme', '-n', 'abc'], line: '--limit (-n): "abc" is not a whole number 1 or more' },
  'a page 0': { args: ['errors', 'acme', '--page', '0'], line: '--page: "0" is not a whole number 1 or more' },
  'an unknown order': { args: ['errors', 'acme', '--order', 'oldest'], line: '--order: "oldest" is not an order; choose newest or next-retry' },
  'an unknown dead-letter entity': { args: ['retry', 'acme', '--entity', 'invoice'], line: /^--entity: "invoice" is not an entity; choose from buyer, .*notification/ },
  'an unknown entity to list letters of': { args: ['errors', 'acme', '--entity', 'invoice'], line: /^--entity: "invoice" is not an entity; choose from buyer, .*notification, alert/ },
  'a retry of alerts': { args: ['retry', 'acme', '--entity', 'alert'], line: '--entity: alerts that could not be delivered are not retried (a retry could send one twice); list them with crm-sync errors <connection> --entity alert' },
  'a timeline event type that is not one': { args: ['edit', 'acme', '--timeline-events', 'OFFER:'], line: '--timeline-events: "OFFER:" is not an event type; give default, or event types such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED, comma-separated' },
  '--every 5x (connect)': { args: [...connect, '--every', '5x'], line: '--every: "5x" is not a duration; use a whole number with s, m or h, like 15m' },
  '--every 5x (edit)': { args: ['edit', 'acme', '--every', '5x'], line: '--every: "5x" is not a duration; use a whole number with s, m or h, like 15m' },
  'a page size too big': { args: ['edit', 'acme', '--page-size', '5000'], line: '--page-size: "5000" is not a whole number from 2 to 1000' },
  'renewal lead days as a word': { args: ['edit', 'acme', '--renewal-lead-days', 'soon'], line: '--renewal-lead-days: "soon" is not a whole number from 1 to 3650' },
  'an unknown stage owner': { args: ['edit', 'acme', '--stage-owner', 'me'], line: '--stage-owner: "me" is not a stage owner; choose commerce, crm or latest' },
  'bad --overrides JSON': { args: ['edit', 'acme', '--overrides', '{"offer":'], line: /^--overrides: not JSON \(.*\); give an object like \{"offer":\{"disable":\["Description"\]\}\}$/ },
  '--cosell that is not an object': { args: ['edit', 'acme', '--cosell', '[true]'], line: '--cosell: not a JSON object; give one like {"enabled":false}' },
  'an unknown connection setting': { args: [...connect, '--overrides', '{"offer":{"renames":{"Amount":"Value__c"}}}'], line: '--overrides (overrides.offer): Unrecognized key: "renames"', extraEnv: secrets },
  'an unknown CRM': { args: ['connect', '--crm', 'zoho'], line: '--crm: "zoho" is not a CRM; choose salesforce, hubspot or dynamics' },
  'a URL that is not one': { args: ['connect', '--commerce-url', 'api.example'], line: '--commerce-url: "api.example" is not a URL; use one starting with https://' },
  'missing required flags': { args: ['connect', '--name', 'acme'], line: 'crm-sync connect needs --commerce-url, --commerce-auth-url, --commerce-client-id, --commerce-org, --salesforce-login-url, --salesforce-client-id (or run it on a terminal to be asked)' },
  'a missing secret variable': { args: connect, line: "A Salesforce connection needs the connected app's secret in SALESFORCE_CLIENT_SECRET", extraEnv: { COMMERCE_CLIENT_SECRET: 'commerce-secret-1' } },
  'an empty name': { args: ['connect', '--name', ' '], line: '--name: needs a value, not an empty one (is a variable in the script unset?)' },
  'an id list without an id': { args: ['retry', 'acme', '--id', ','], line: '--id: no id given; give one or more ids, comma-separated' },
  'a port out of range': { args: ['sandbox', '--commerce-port', '70000'], line: '--commerce-port: "70000" is not a whole number from 0 to 65535' },
  'a missing argument': { args: ['show'], line: "missing required argument 'connection'" },
  'an unknown option': { args: ['runs', 'acme', '--no-such-flag'], line: "unknown option '--no-such-flag'" },
  'a bad configuration variable': { args: ['connections'], line: 'LOG_LEVEL: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "loud"', extraEnv: { LOG_LEVEL: 'loud' } },
};

describe.concurrent('crm-sync usage mistakes', () => {
  it.each(Object.entries(MISTAKES))('%s: exit 2, one line naming the flag', async (_name, mistake) => {
    const outcome = await cliOutcome(env, mistake.args, mistake.extraEnv);
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr.endsWith('\n')).toBe(true);
    const lines = outcome.stderr.slice(0, -1).split('\n');
    expect(lines).toHaveLength(1);
    if (typeof mistake.line === 'string') expect(lines[0]).toBe(mistake.line);
    else expect(lines[0]).toMatch(mistake.line);
    expect(outcome.stdout).toBe('');
  });

  it('under --json the mistake is {"error": ...} on one stdout line, with the same exit code', async () => {
    const outcome = await cliOutcome(env, ['backfill', 'acme', '--from', 'garbage', '--json']);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('{"error":"--from: \\"garbage\\" is not a time; use ISO 8601, like 2026-01-01 or 2026-01-01T09:30:00Z"}\n');
    const variable = await cliOutcome(env, ['connections'], { CRM_SYNC_OUTPUT: 'json', LOG_LEVEL: 'loud' });
    expect(variable.code).toBe(2);
    expect(JSON.parse(variable.stdout)).toEqual({ error: 'LOG_LEVEL: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "loud"' });
    expect(variable.stdout.split('\n')).toHaveLength(2); // one line, then the newline
  });

  it('a sandbox port another program holds: exit 2, one line naming the port and the flag, no stack', async () => {
    const held = net.createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const { port } = held.address() as net.AddressInfo;
    try {
      const outcome = await cliOutcome(env, ['sandbox', '--commerce-port', String(port)]);
      expect(outcome.code, outcome.stderr).toBe(2);
      expect(outcome.stderr).toBe(`port ${port} is in use: choose another with --commerce-port (0: any free port)\n`);
      expect(outcome.stdout).toBe('');
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });
});
