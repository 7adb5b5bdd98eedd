// The audit trail from the command line (issue #26 section 2), as processes against a real PostgreSQL, a
// real Temporal server and both sandboxes: connect, edit a setting, pause, resume and retry are each
// recorded as "cli as <OS user>", the edit with its settings before and after; `crm-sync audit` shows
// them newest first, filtered and paged, as JSON for a script and a table (with --details, the diff) for
// a person; no output and no stored row holds a secret; a bad filter exits 2 naming the flag.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createMappingVersionStore } from '../../store/mapping-versions.ts';
import { cliEnv, cliOutcome } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startSandboxes } from '../support/sync-harness.ts';

const WHO = `cli as ${os.userInfo().username}`;

describe('crm-sync audit (real PostgreSQL, real Temporal, both sandboxes)', () => {
  const key = randomBytes(32);
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let env: NodeJS.ProcessEnv;
  let connectionId = '';
  const printed: string[] = []; // every output of every command, scanned for secrets at the end

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 4, seed: 61 });
    env = cliEnv({
      databaseUrl: database.url,
      secretKey: key.toString('base64'),
      taskQueue: `audit-${Date.now()}`, // no worker: nothing here needs a run to finish
      commerceClientSecret: sandboxes.commerce.clientSecret,
      salesforceClientSecret: sandboxes.salesforce.clientSecret,
    });
  });
  afterAll(async () => {
    await sandboxes?.stop();
    await database?.drop();
  });

  const cli = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const outcome = await cliOutcome(env, args, extraEnv);
    printed.push(outcome.stdout, outcome.stderr);
    return outcome;
  };
  const json = async (args: string[]) => {
    const outcome = await cli(args);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout.trim().split('\n')).toHaveLength(1); // one JSON line, as every --json
    return JSON.parse(outcome.stdout);
  };

  it('records connect, edit, pause, resume and retry as the OS user, and lists them newest first', async () => {
    connectionId = (
      await json([
        'connect', '--name', 'acme', '--paused',
        '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
        '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
        '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
        '--entities', 'buyer,offer',
      ])
    ).connection;
    await json(['edit', 'acme', '--every', '10m']);
    await json(['pause', 'acme']);
    await json(['resume', 'acme']);
    // A letter waiting, so the retry changes something (a retry that finds none changes nothing and is not recorded).
    await createDeadLetterStore(database.pool).record(connectionId, 'offer', [{ sourceId: 'offer-audit-1', reason: 'Salesforce refused it' }]);
    expect((await json(['retry', 'acme', '--entity', 'offer'])).due).toBe(1);
    await json(['pause', 'acme']); // pause again: back to where nothing runs without a worker

    const page = await json(['audit']);
    expect(page.total).toBe(6);
    expect(page.events.map((event: { action: string }) => event.action)).toEqual(['pause', 'retry', 'resume', 'pause', 'settings.edit', 'connect']);
    for (const event of page.events) expect(event).toMatchObject({ actor: WHO, actorKind: 'cli', via: 'cli', connectionId, connection: 'acme' });
    const [, retry, , , edit, connect] = page.events;
    expect(retry).toMatchObject({ target: 'offer', detail: { due: 1 } });
    expect(edit.before.schedule.every).toBe('5m');
    expect(edit.after.schedule.every).toBe('10m');
    expect(edit.after.entities).toEqual(['buyer', 'offer']);
    expect(connect.after).toMatchObject({ entities: ['buyer', 'offer'], schedule: { every: '5m' } });
    expect(connect.before).toBeUndefined();
  });

  it('filters by action, actor, connection and time, and pages', async () => {
    expect((await json(['audit', '--action', 'pause'])).events.map((event: { action: string }) => event.action)).toEqual(['pause', 'pause']);
    expect((await json(['audit', '--action', 'settings'])).total).toBe(1);
    expect((await json(['audit', '--actor', os.userInfo().username, '--connection', 'acme'])).total).toBe(6);
    expect((await json(['audit', '--actor', 'somebody-else'])).total).toBe(0);
    expect((await json(['audit', '--since', '7d'])).total).toBe(6);
    expect((await json(['audit', '--since', '2999-01-01'])).total).toBe(0);
    const second = await json(['audit', '-n', '2', '--page', '2']);
    expect(second).toMatchObject({ total: 6, page: 2, pages: 3, first: 3, last: 4 });
    expect(second.events.map((event: { action: string }) => event.action)).toEqual(['resume', 'pause']);
  });

  it('shows a person a table with a "Showing" line, and the before/after of a setting with --details', async () => {
    const table = await cli(['audit', '-n', '3'], { CRM_SYNC_OUTPUT: 'human' });
    expect(table.code, table.stderr).toBe(0);
    const [header, first] = table.stdout.split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['TIME', 'WHO', 'VIA', 'ACTION', 'CONNECTION', 'TARGET']);
    expect(first!.split(/\s{2,}/).slice(1)).toEqual([WHO, 'cli', 'pause', 'acme', '-']);
    expect(table.stdout).toContain('Showing 1–3 of 6; --page 2 for more');

    const details = await cli(['audit', '--action', 'settings.edit', '--details'], { CRM_SYNC_OUTPUT: 'human' });
    expect(details.code, details.stderr).toBe(0);
    expect(details.stdout).toMatch(/schedule\.every\s+"5m"\s+->\s+"10m"/);
    expect(details.stdout).not.toContain('schedule.pageSize'); // what did not change is left out
    expect(details.stdout).toContain('Showing 1–1 of 1');
  });

  it('a wrong filter exits 2 with one line naming the flag; an unknown connection exits 3', async () => {
    const since = await cli(['audit', '--since', 'last week']);
    expect(since.code).toBe(2);
    expect(since.stderr.trim()).toBe('--since: "last week" is not a time; use ISO 8601 like 2026-01-01, or an age like 7d, 12h or 30m');
    const limit = await cli(['audit', '-n', '0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr.trim()).toBe('--limit (-n): "0" is not a whole number from 1 to 500');
    const unknown = await cli(['audit', '--connection', 'nope']);
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.stdout).error).toContain('No connection named or numbered "nope"');
  });

  it('mapping --edit saves a version of each changed flow, as the console does, and records one mapping.edit', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'audit-mapping-')), 'overrides.json');
    writeFileSync(file, JSON.stringify({ offer: { disable: ['Amount'] } }));
    const saved = await cli(['mapping', 'acme', '--edit', file]);
    expect(saved.code, saved.stderr).toBe(0);

    // The console's version list: what was in effect before (version 1), then the file's overrides.
    const versions = await createMappingVersionStore(database.pool).list(connectionId, 'offer');
    expect(versions.map(({ version, overrides, savedBy }) => ({ version, overrides, savedBy }))).toEqual([
      { version: 2, overrides: { disable: ['Amount'] }, savedBy: WHO },
      { version: 1, overrides: {}, savedBy: 'in effect before the first save here' },
    ]);
    expect(await createMappingVersionStore(database.pool).list(connectionId, 'buyer')).toEqual([]); // unchanged: no version

    const edits = await json(['audit', '--action', 'mapping.edit']);
    expect(edits.total).toBe(1);
    expect(edits.events[0]).toMatchObject({ actor: WHO, via: 'cli', connection: 'acme', target: 'offer', before: {}, after: { disable: ['Amount'] }, detail: { version: 2 } });
  });

  it('backfill --cancel with no such backfill running exits 3 with one line, and records nothing', async () => {
    const before = (await json(['audit'])).total;
    const cancel = await cli(['backfill', 'acme', '--entities', 'offer', '--cancel'], { CRM_SYNC_OUTPUT: 'human' });
    expect(cancel.code, cancel.stderr).toBe(3);
    expect(cancel.stderr).toBe('No backfill of acme with these options is running (entities offer): nothing to cancel. Give the options it was started with.\n');
    expect((await json(['audit'])).total).toBe(before);
  });

  it('never prints or stores a secret', async () => {
    const secrets = [sandboxes.commerce.clientSecret, sandboxes.salesforce.clientSecret, key.toString('base64')];
    const { rows } = await database.pool.query('SELECT actor, target, before::text, after::text, detail::text FROM audit_events');
    const everything = printed.join('\n') + JSON.stringify(rows);
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});
