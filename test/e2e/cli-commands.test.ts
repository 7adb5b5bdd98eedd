// The commands revenue ops use, run as processes against a real PostgreSQL, a real Temporal server and
// both sandboxes: connect (both sides tested before saving), connections, edit, pause/resume, preview,
// backfill (live progress, then its summary) and dead-letters (listing, redacted, and --retry).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { createSyncRunStore } from '../../store/sync-runs.ts';
import { connectionScheduleIds, syncScheduleId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, salesforceCalls, salesforceDump, startProductionWorker, startSandboxes, writeCalls } from '../support/sync-harness.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);

describe('crm-sync commands (real PostgreSQL, real Temporal, both sandboxes)', () => {
  const key = randomBytes(32);
  const taskQueue = `cli-${Date.now()}`;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: NativeConnection;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 60, seed: 21 });
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      CRM_SYNC_SECRET_KEY: key.toString('base64'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: taskQueue,
      CRM_SYNC_DEMO: 'off',
      CRM_SYNC_OUTPUT: 'json', // scripts' output; the table tests ask for human
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      // The commands' processes share Node's compile cache: each does not strip and compile the same TypeScript again.
      NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'crm-sync-test-compile-cache'),
      COMMERCE_CLIENT_SECRET: sandboxes.commerce.clientSecret,
      SALESFORCE_CLIENT_SECRET: sandboxes.salesforce.clientSecret,
    };
    worker = await startProductionWorker(database, { taskQueue, secretBox: new SecretBox(key) });
    connection = worker.connection;
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } });
  const connectArgs = () => [
    'connect', '--name', 'acme',
    '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
    '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
    '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
    // Paused from the start: a schedule firing on its interval's boundary would sync before preview looks.
    '--paused',
  ];
  const schedule = () => new Client({ connection }).schedule.getHandle(syncScheduleId(connectionId)).describe();
  /** How many runs the sync schedule has started so far. */
  const actionsTaken = async () => (await schedule()).info.numActionsTaken;
  /**
   * Waits until the run a trigger asked for has started (the schedule took one more action than `before`,
   * a moment after the trigger) and no run the schedule started is still going (the next test swaps secrets).
   */
  const syncsFinished = async (before: number) => {
    const deadline = Date.now() + 60_000;
    const settled = async () => {
      const { info } = await schedule();
      return info.numActionsTaken > before && info.runningActions.length === 0;
    };
    while (!(await settled()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const { info } = await schedule();
    expect(info.numActionsTaken).toBeGreaterThan(before);
    expect(info.runningActions).toEqual([]);
  };
  let connectionId = '';

  it('connect refuses credentials that do not work, saying which side, and saves nothing', async () => {
    const failed = await cli(connectArgs(), { COMMERCE_CLIENT_SECRET: 'wrong-secret-1234' }).catch((error) => error);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/not saved/);
    expect(failed.stderr).toMatch(/commerce:/);
    expect(failed.stderr).not.toContain('wrong-secret-1234');
    expect(JSON.parse((await cli(['connections'])).stdout)).toEqual([]);
  });

  it('connect tests both sides, saves the connection and its schedules; connections never shows a secret', async () => {
    const { stdout } = await cli(connectArgs());
    const saved = JSON.parse(stdout);
    expect(saved).toMatchObject({ name: 'acme', schedule: { incremental: 'created', realtime: 'created', reconcile: 'created' }, writesBack: true });
    expect(saved.verified.commerceOrganization ?? saved.verified).toBeTruthy();
    connectionId = saved.connection;
    const listed = (await cli(['connections'])).stdout;
    expect(JSON.parse(listed)).toMatchObject([{ id: connectionId, name: 'acme', writesBack: true }]);
    expect(listed).not.toContain(sandboxes.commerce.clientSecret);
    expect(listed).not.toContain(sandboxes.salesforce.clientSecret);
    const { rows } = await database.pool.query('SELECT secrets_ciphertext::text AS sealed FROM connections');
    expect(rows[0].sealed).not.toContain(sandboxes.salesforce.clientSecret);
  });

  it('pause and resume hold and release every schedule; edit changes the intervals after testing again', async () => {
    const all = () => Promise.all(connectionScheduleIds(connectionId).map((id) => new Client({ connection }).schedule.getHandle(id).describe()));
    await cli(['pause', 'acme']);
    expect((await all()).map((described) => described.state.paused)).toEqual([true, true, true, true]);
    const edited = JSON.parse((await cli(['edit', 'acme', '--every', '10m', '--page-size', '25', '--reconcile-every', '12h'])).stdout);
    expect(edited.settings.schedule).toMatchObject({ every: '10m', pageSize: 25, reconcileEvery: '12h' });
    expect((await schedule()).spec.intervals?.[0]?.every).toBe(10 * 60_000);
    expect((await all())[2]!.spec.intervals?.[0]?.every).toBe(12 * 3600_000);
    const bad = await cli(['edit', 'acme', '--every', 'often']).catch((error) => error);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/every/);
    await cli(['resume', 'acme']);
    expect((await all()).map((described) => described.state.paused)).toEqual([false, false, false, false]);
    await cli(['pause', 'acme']); // quiet for the rest: only what the tests start runs
  });

  it('preview reports what the first sync would do and writes nothing', async () => {
    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls/reset`, { method: 'POST' });
    const report = JSON.parse((await cli(['preview', 'acme', '--entities', 'buyer,offer'])).stdout);
    // Records that already carry a CRM id (set by the seller in Salesforce) would be updated by that id.
    expect(report.buyer.create + report.buyer.update).toBe((await commerceDump(sandboxes.commerce, 'buyers')).length);
    expect(report.buyer).toMatchObject({ unchanged: 0, reject: 0 });
    expect(report.offer.create + report.offer.update).toBe((await commerceDump(sandboxes.commerce, 'offers')).length);
    // The co-sell policy in effect is shown beside what would be written.
    expect(report.cosell).toMatchObject({ enabled: true, share: { by: 'checkbox', field: 'Cosell_Share__c' }, owners: { stage: 'latest' } });
    expect(report.cosell.stages.toCommerce['Negotiation/Review']).toBe('Committed');
    expect(report.cosell.stages.toCrm.Launched).toBe('Closed Won');
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce))).toBe(0);
    expect(await salesforceDump(sandboxes.salesforce, 'Account')).toEqual([]);
  });

  it('backfill shows live progress, then its summary; dead-letters lists what Salesforce refused', async () => {
    // Salesforce answers slowly, as a busy org does, so the progress has time to move while we watch.
    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: '*', latencyMs: 400 }) });
    const child = spawn(process.execPath, [BIN, 'backfill', 'acme'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const progress: string[] = [];
    const stdout: string[] = [];
    readline.createInterface({ input: child.stderr! }).on('line', (line) => progress.push(line));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
    // Done, but with records Salesforce refused: exit 4 (something needs attention), as doctor.
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(4);
    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'DELETE' });
    const lines = progress.filter((line) => line.startsWith('['));
    expect(lines.length).toBeGreaterThan(1); // it moved while we watched
    expect(lines.some((line) => /^\[offer page \d+\] pages \d+, read \d+, written \d+/.test(line))).toBe(true);
    const summary = JSON.parse(stdout.at(-1)!);
    const buyers = (await commerceDump(sandboxes.commerce, 'buyers')).length;
    expect(summary.workflowId).toMatch(/^backfill-/);
    expect(summary.entities.buyer.created).toBe(buyers);
    expect((await salesforceDump(sandboxes.salesforce, 'Account')).length).toBe(buyers);

    const foreign = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.crmAOpportunityId);
    expect(summary.failed).toBe(foreign.length);
    const letters = JSON.parse((await cli(['dead-letters', 'acme'])).stdout);
    expect(letters.map((letter: { sourceId: string }) => letter.sourceId).sort()).toEqual(foreign.map((referral) => referral.id).sort());
    expect(letters[0].reason).toMatch(/INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY|MALFORMED_ID/);
    expect(JSON.stringify(letters)).not.toContain('"payload"');
  });

  it('dead-letters --retry gives letters fresh attempts, also one that used all five, and the sync it starts retries them', async () => {
    const letters = JSON.parse((await cli(['dead-letters', 'acme'])).stdout) as { id: number; sourceId: string; entity: string }[];
    expect(letters.length).toBeGreaterThan(1);
    const [spent, other] = letters;
    const read = async (id: number) => (await database.pool.query('SELECT attempts, last_failed_at, first_failed_at FROM dead_letters WHERE id = $1', [id])).rows[0];
    // One letter used all its attempts: the sync leaves it alone for good.
    await database.pool.query('UPDATE dead_letters SET attempts = 5 WHERE id = $1', [spent!.id]);
    const before = await read(spent!.id);

    const none = await cli(['dead-letters', 'acme', '--retry', '--id', 'no-such-referral']);
    expect(JSON.parse(none.stdout)).toMatchObject({ due: 0, message: 'No open dead letters (id no-such-referral) for acme: nothing to retry' });

    const actionsBefore = await actionsTaken();
    const retried = await cli(['dead-letters', 'acme', '--retry']);
    expect(JSON.parse(retried.stdout)).toMatchObject({ due: letters.length, hadUsedAllAttempts: 1, syncStarted: true, message: `${letters.length} dead letters (1 had used all its 5 attempts) are due now; the sync starts now and retries them` });
    // The sync it started sends the record again: Salesforce refuses it again (attempt 1 of a fresh five).
    const deadline = Date.now() + 45_000;
    let after = await read(spent!.id);
    while (after.last_failed_at.getTime() === before.last_failed_at.getTime() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      after = await read(spent!.id);
    }
    expect(after.last_failed_at.getTime()).toBeGreaterThan(before.last_failed_at.getTime());
    expect(after.attempts).toBe(1);
    expect(after.first_failed_at).toEqual(before.first_failed_at);
    await syncsFinished(actionsBefore);

    const otherBefore = await read(other!.id);
    const actionsBeforeOne = await actionsTaken();
    const one = await cli(['dead-letters', 'acme', '--retry', '--entity', other!.entity, '--id', other!.sourceId]);
    expect(JSON.parse(one.stdout)).toMatchObject({ due: 1, message: '1 dead letter is due now; the sync starts now and retries them' });
    await syncsFinished(actionsBeforeOne);
    const otherAfter = await read(other!.id);
    expect(otherAfter.last_failed_at.getTime()).toBeGreaterThan(otherBefore.last_failed_at.getTime());
    expect(otherAfter.attempts).toBe(1);
    expect((await read(spent!.id)).last_failed_at).toEqual(after.last_failed_at); // not chosen: left alone
  });

  it('dead-letters never shows a secret, even from a letter stored before redaction', async () => {
    await database.pool.query(
      `INSERT INTO dead_letters (connection_id, entity, source_id, reason, crm_error, next_retry_at)
       VALUES ($1, 'notification', 'event-old', $2, $3, now() + interval '1 hour')`,
      [connectionId, 'envelope v9 from https://app.example/entitlement/e1?token=clear-token-0042', JSON.stringify({ authorization: 'Bearer clear-session-0042', status: 400 })],
    );
    const { stdout } = await cli(['dead-letters', 'acme', '--entity', 'notification', '--id', 'event-old']);
    expect(stdout).not.toContain('clear-token-0042');
    expect(stdout).not.toContain('clear-session-0042');
    expect(JSON.parse(stdout)).toMatchObject([{ sourceId: 'event-old', reason: 'envelope v9 from https://app.example/entitlement/e1?[redacted]', crmError: { authorization: '[redacted]', status: 400 } }]);
  });

  it('setup --json with problems prints one JSON line and exits 4; under --json an error is {"error": ...} on stdout', async () => {
    const failure = (promise: Promise<unknown>) => promise.then(() => ({ code: 0, stdout: '', stderr: '' }), (error: { code: number; stdout: string; stderr: string }) => error);
    const missing = await failure(cli(['show', 'nobody', '--json']));
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('{"error":"No connection named or numbered \\"nobody\\"; known: acme"}\n');

    // Overrides naming a field the org lacks (saved by the store: connect and mapping --edit would refuse them).
    const store = createConnectionStore(database.pool, new SecretBox(key));
    const saved = (await store.get(connectionId))!.settings as Record<string, unknown>;
    await store.update(connectionId, { settings: { ...saved, overrides: { offer: { rename: { Amount: 'Contract_Value__c' } } } } });
    try {
      const setup = await failure(cli(['setup', 'acme', '--json']));
      expect(setup.code, setup.stderr).toBe(4);
      expect(setup.stdout.endsWith('\n')).toBe(true);
      expect(setup.stdout.slice(0, -1).split('\n')).toHaveLength(1);
      expect(JSON.parse(setup.stdout).problems).toEqual([expect.stringContaining("Opportunity has no field 'Contract_Value__c'")]);
    } finally {
      await store.update(connectionId, { settings: saved });
    }
  }, 120_000);

  it('a revoked secret marks the connection for re-authorisation; runs stop at once with the reason until edit saves new secrets', async () => {
    // The commerce side rotated its client secret: the stored one no longer works.
    const store = createConnectionStore(database.pool, new SecretBox(key));
    await store.update(connectionId, { secrets: { commerceClientSecret: 'rotated-away-9876', crmClientSecret: sandboxes.salesforce.clientSecret } });
    const sync = () => new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cli-sync-${Date.now()}`, args: [{ connectionId }] });
    // A workflow failure wraps the activity failure, which wraps the reason.
    const reasons = (error: { message: string; cause?: unknown }) => {
      const messages: string[] = [];
      for (let cause: any = error; cause; cause = cause.cause) messages.push(cause.message);
      return messages.join(' / ');
    };
    expect(reasons(await sync().catch((error) => error))).toMatch(/refused the client credentials/);
    const listed = JSON.parse((await cli(['connections'])).stdout)[0];
    expect(listed.needsReauthorisation.reason).toMatch(/refused the client credentials/);
    expect(JSON.stringify(listed)).not.toContain('rotated-away-9876');

    expect(reasons(await sync().catch((error) => error))).toMatch(/needs re-authorisation .*crm-sync edit/);
    const runs = await createSyncRunStore(database.pool).latest(connectionId);
    expect(runs[0]).toMatchObject({ kind: 'incremental', status: 'failed' });
    expect(runs[0]!.error).toMatch(/needs re-authorisation/);

    await cli(['edit', 'acme']); // the good secrets from the environment, tested before saving
    expect(JSON.parse((await cli(['connections'])).stdout)[0].needsReauthorisation).toBeUndefined();
    expect((await sync()).finished).toBe(true);
  });
});
