// Issue #14, for each CRM: the CRM takes back the credentials a working connection holds (as its admin
// would: Salesforce's connected app, HubSpot's OAuth app, the Dynamics app registration's secret). The
// run that meets the refusal fails at once with a reason that keeps the CRM's own words, the connection
// is marked for re-authorisation (`crm-sync connections` shows it), and later runs (sync and co-sell)
// refuse without a single call to the CRM: nothing retries against a login that cannot succeed. A co-sell
// run meeting a revocation first marks the connection just the same. Once the credentials are good again,
// `crm-sync edit` tests and saves them, the mark is gone and the next sync brings the CRM in line with the
// witness. Every command's output, the worker's log lines and the runs' Temporal histories
// are then scanned for every secret in play. Real PostgreSQL, real Temporal, `crm-sync worker` and the
// `crm-sync` commands as processes, the sandboxes on the wire. The three CRMs' steps run at the same time
// (their own sandboxes, connection and workflow ids; one worker, as in production); each CRM's steps run
// in order.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectionScheduleIds } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { CRM_SYNC_BIN, runCli } from '../support/cli.ts';
import { connectCommand } from '../support/cli-connect.ts';
import { revocationOf } from '../support/crm-revocation.ts';
import { CRMS_UNDER_TEST, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { historiesText, secretsFound } from '../support/secret-scan.ts';
import { waitFor } from '../support/start-process.ts';

/** A run that has not settled by then is retrying: the very thing this file is about. */
const SETTLE_MS = 45_000;

const secretKey = randomBytes(32).toString('base64');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-revoked-'));
const taskQueue = `revoked-crm-${Date.now()}`;
let database: TestDatabase;
let worker: ChildProcess;
const workerLog: string[] = [];
let temporal: Connection;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  database = await createTestDatabase();
  env = {
    ...process.env,
    DATABASE_URL: database.url,
    CRM_SYNC_SECRET_KEY: secretKey,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    CRM_SYNC_TASK_QUEUE: taskQueue,
    CRM_SYNC_DEMO: 'off',
    CRM_SYNC_DATA_DIR: dataDir,
    CRM_SYNC_OUTPUT: 'json',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    // The worker and the thirty-odd `crm-sync` commands load the same modules: V8's compile cache, kept
    // in the data directory, saves each later process about half the CPU of its start.
    NODE_COMPILE_CACHE: path.join(dataDir, 'node-compile-cache'),
  };
  worker = spawn(process.execPath, [CRM_SYNC_BIN, 'worker'], { env: { ...env, CRM_SYNC_ADMIN_PORT: String(await freePort()) }, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [worker.stdout!, worker.stderr!]) readline.createInterface({ input: stream }).on('line', (line) => workerLog.push(line));
  await waitFor('crm-sync worker running', () => workerLog.some((line) => line.includes('"Worker running"')), 120_000);
  temporal = await Connection.connect({ address: inject('temporalAddress') });
});

afterAll(async () => {
  // The worker's log lines, for whoever reads a failure (test-artifacts/ is not committed).
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync(path.join('test-artifacts', 'crm-credentials-revoked-worker.log'), workerLog.join('\n'));
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await temporal?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every message down a failure's cause chain (the workflow's wraps the activity's, which wraps the reason). */
function reasons(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error as { message?: string; cause?: unknown } | undefined; cause; cause = cause.cause as typeof cause) messages.push(cause.message ?? '');
  return messages.join(' / ');
}

describe.each(CRMS_UNDER_TEST)('revoked %s credentials', { concurrent: true }, (kind) => {
  const name = `revoked-${kind}`;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let revocation: ReturnType<typeof revocationOf>;
  let connect: ReturnType<typeof connectCommand>;
  let connectionId = '';
  const outputs: string[] = [];
  const workflowIds: string[] = [];

  beforeAll(async () => {
    // HubSpot through OAuth: the refresh token is what an uninstall takes back.
    sandboxes = await startSandboxesFor(kind, { entitlements: 40, seed: 61 }, { auth: 'oauth' });
    await sandboxes.crm.calls(); // the CRM made ready (setup's properties, pipelines, tables) before connect checks the mappings
    revocation = revocationOf(sandboxes.crm);
    // Paused: only the runs this file starts touch the CRM.
    connect = connectCommand(name, sandboxes.commerce, sandboxes.crm, ['--paused']);
  });
  afterAll(async () => {
    const client = new Client({ connection: temporal });
    if (connectionId) for (const id of connectionScheduleIds(connectionId)) await client.schedule.getHandle(id).delete().catch(() => {});
    await sandboxes?.stop();
  });

  /** `crm-sync <args>` with the connection's secrets in the environment; every output is kept for the scan. */
  async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
    try {
      const done = await runCli({ ...env, ...connect.env }, args, extraEnv);
      outputs.push(done.stdout, done.stderr);
      return JSON.parse(done.stdout.trim().split('\n').at(-1)!);
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      outputs.push(failed.stdout ?? '', failed.stderr ?? '');
      throw error;
    }
  }
  const listed = async () => ((await cli(['connections'])) as { name: string; needsReauthorisation?: { reason: string } }[]).find((connection) => connection.name === name)!;

  /** A run now (an incremental sync unless told): its outcome, or `stillRunning` when it has not settled in SETTLE_MS (then ended). */
  async function sync(label: string, workflowType: string = WORKFLOW_TYPES.incrementalSync): Promise<{ finished?: boolean; failure?: string; stillRunning?: boolean }> {
    const workflowId = `${name}-${label}-${Date.now()}`;
    workflowIds.push(workflowId);
    const handle: WorkflowHandle = await new Client({ connection: temporal }).workflow.start(workflowType, { taskQueue, workflowId, args: [{ connectionId }] });
    const outcome = await Promise.race([
      handle.result().then((result: { finished?: boolean }) => ({ finished: result.finished ?? true }), (error: unknown) => ({ failure: reasons(error) })),
      sleep(SETTLE_MS).then(() => ({ stillRunning: true })),
    ]);
    if ('stillRunning' in outcome) await handle.terminate('still running after the time a refusal should take').catch(() => {});
    return outcome;
  }
  const callCounts = async () => (await sandboxes.crm.calls()) as Record<string, number>;
  /** Changes on the commerce side that the next sync must carry into the CRM. */
  const changeCommerceRecords = () =>
    fetch(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 6, kinds: ['offerStatus', 'entitlementStatus', 'termUsage'] }) });

  /** The row `crm-sync runs` shows for each of these workflow ids. */
  async function runRows(ids: string[]) {
    const rows = (await cli(['runs', name, '-n', '50'])) as { id: string; kind: string; status: string; error: string | null }[];
    return ids.map((workflowId) => rows.find((row) => row.id.startsWith(`${workflowId}/`)));
  }
  const tokenRequests = (calls: Record<string, number>) => calls[revocation.tokenEndpoint] ?? 0;

  /** Later runs of every kind stop at once with the reason (the CRM's words) and what to do, calling nothing on the CRM. Returns their workflow ids. */
  async function expectLaterRunsRefusedWithoutCalls(label: string, workflowTypes: string[] = [WORKFLOW_TYPES.incrementalSync, WORKFLOW_TYPES.cosell]): Promise<string[]> {
    await sandboxes.crm.resetCalls();
    for (const workflowType of workflowTypes) {
      const later = await sync(`${label}-${workflowType}`, workflowType);
      expect(later.failure, workflowType).toMatch(/needs re-authorisation/);
      expect(later.failure, workflowType).toMatch(revocation.crmSays);
      expect(later.failure, workflowType).toMatch(/Save new secrets with crm-sync edit/);
      expect(later.failure, 'the reason reads as sentences').not.toMatch(/\.\./);
    }
    expect((await callCounts()).total ?? 0).toBe(0);
    return workflowIds.slice(-workflowTypes.length);
  }

  /** The admin makes the credentials good again; `crm-sync edit` tests and saves them and the mark is gone. */
  async function reauthorise() {
    await revocation.restore();
    expect(await cli(['edit', name])).toMatchObject({ name });
    expect((await listed()).needsReauthorisation).toBeUndefined();
  }

  it('connect tests both sides and saves the connection; the first sync succeeds', { concurrent: false, timeout: 90_000 }, async () => {
    const saved = await cli(connect.args);
    expect(saved).toMatchObject({ name });
    connectionId = saved.connection;
    expect(await sync('first')).toEqual({ finished: true });
    expect((await sandboxes.crm.keyed('buyer')).size).toBeGreaterThan(0);
  });

  it('revoked: the sync that meets it fails at once in the CRM\'s words and marks the connection; later runs call nothing on the CRM', { concurrent: false, timeout: 120_000 }, async () => {
    // Commerce records change, so the run has CRM writes to make; then the CRM's admin revokes.
    await changeCommerceRecords();
    await revocation.revoke();
    await sandboxes.crm.resetCalls();

    const refused = await sync('refused');
    const calls = await callCounts();
    expect(refused.stillRunning, `the run was still going after ${SETTLE_MS} ms (retrying?): ${JSON.stringify(calls)}`).toBeUndefined();
    expect(refused.failure).toMatch(revocation.crmSays);
    expect(refused.failure).toMatch(/crm-sync edit/);
    // One token request, refused and believed: the call that met the revocation, and nothing after it.
    expect(tokenRequests(calls), JSON.stringify(calls)).toBe(1);
    expect(calls.total, JSON.stringify(calls)).toBeLessThanOrEqual(3);
    const refusedId = workflowIds.at(-1)!;

    expect((await listed()).needsReauthorisation?.reason ?? '(not marked)', 'crm-sync connections shows the mark').toMatch(revocation.crmSays);

    const later = await expectLaterRunsRefusedWithoutCalls('marked');
    const [refusedRow, ...laterRows] = await runRows([refusedId, ...later]);
    expect(refusedRow).toMatchObject({ kind: 'incremental', status: 'failed', error: expect.stringMatching(revocation.crmSays) });
    expect(laterRows).toEqual([
      expect.objectContaining({ kind: 'incremental', status: 'failed', error: expect.stringMatching(/needs re-authorisation/) }),
      expect.objectContaining({ kind: 'cosell', status: 'failed', error: expect.stringMatching(/needs re-authorisation/) }),
    ]);
  });

  it('made good again: crm-sync edit tests and saves the connection, the mark is gone and the next sync finishes', { concurrent: false, timeout: 90_000 }, async () => {
    await reauthorise();
    expect(await sync('reauthorised')).toEqual({ finished: true });
  });

  it('a co-sell run meeting a revocation first marks the connection as well; later runs call nothing; then all is in step', { concurrent: false, timeout: 120_000 }, async () => {
    // Co-sell runs every 30 seconds, the sync every 5 minutes (the defaults): it is often the first to meet a revocation.
    await changeCommerceRecords();
    await revocation.revoke();
    await sandboxes.crm.resetCalls();
    const refused = await sync('cosell-refused', WORKFLOW_TYPES.cosell);
    const calls = await callCounts();
    expect(refused.stillRunning, `the co-sell run was still going after ${SETTLE_MS} ms: ${JSON.stringify(calls)}`).toBeUndefined();
    expect(refused.failure).toMatch(revocation.crmSays);
    expect(tokenRequests(calls), JSON.stringify(calls)).toBe(1);
    expect((await listed()).needsReauthorisation?.reason ?? '(not marked)', 'the co-sell run marks the connection').toMatch(revocation.crmSays);
    await expectLaterRunsRefusedWithoutCalls('cosell-marked', [WORKFLOW_TYPES.cosell]);

    await reauthorise();
    expect(await sync('cosell-reauthorised', WORKFLOW_TYPES.cosell)).toEqual({ finished: true });
    expect(await sync('last')).toEqual({ finished: true });
    // The CRM holds what the witness expects, the commerce changes made during the outages included; the
    // records it expects refused wait as dead letters, each once.
    const rejected = await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce);
    const letters = (await cli(['errors', name])) as { entity: string; sourceId: string }[];
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort()).toEqual(rejected);
  });

  it('no secret in play appears in any command output, worker log line or Temporal history', { concurrent: false }, async () => {
    const { commerce, crm } = sandboxes;
    const secrets: Record<string, string | undefined> = {
      commerceClientSecret: commerce.clientSecret,
      ...crm.secrets(),
      salesforceClientSecret: crm.salesforce?.clientSecret,
      salesforceRefreshToken: crm.salesforce?.refreshToken,
      hubspotAccessToken: crm.hubspot?.accessToken,
      hubspotClientSecret: crm.hubspot?.oauth.clientSecret,
      hubspotRefreshToken: crm.hubspot?.oauth.refreshToken,
      dynamicsClientSecret: crm.dynamics?.clientSecret,
      secretKey,
      postgresPassword: decodeURIComponent(new URL(database.url).password),
    };
    const texts = {
      'command output': outputs.join('\n'),
      'worker log': workerLog.join('\n'),
      'Temporal history': await historiesText(new Client({ connection: temporal }), workflowIds),
    };
    // The scan reads what it should: the runs' payloads, and the worker's lines about the refusal.
    expect(texts['Temporal history']).toContain(`"connectionId":"${connectionId}"`);
    expect(texts['Temporal history']).toMatch(revocation.crmSays);
    expect(workerLog.some((line) => line.includes('"Activity failed"') && line.includes(connectionId) && line.includes('"CredentialsRefused"'))).toBe(true);
    expect(secretsFound(texts, secrets)).toEqual([]);
  });
});
