// The Temporal server and PostgreSQL each restarted in the middle of a backfill: the worker
// process rides both out (its polls reconnect, activities that lost the database are retried), the
// workflow completes, and the CRM holds exactly the expected records: no duplicate, none missing, none
// stale. Temporal keeps its state in a file here (a real cluster keeps it in its database), so the
// restart is a restart and not a new server. The Temporal history and the worker's log lines are then
// scanned for every secret in play.
//
// What is restarted is not the CRM's: the worker's polls, its database pool and the retried activities
// are the same whatever CRM the run writes to. So `npm test` keeps the reduced form: Salesforce only,
// 1,200 entitlements. `npm run chaos` (CRM_SYNC_CHAOS=full) runs the full form: every CRM (Salesforce,
// HubSpot, Dynamics 365), 10,000 entitlements each.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../infra/embedded-postgres.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../infra/temporal-dev-server.ts';
import { createPool } from '../../store/database.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { migrate } from '../../store/migrate.ts';
import { backfillWorkflowId, readProgress } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { CHAOS_FULL } from '../support/chaos.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { quietLogger, type TestDatabase } from '../support/database.ts';
import type { Entity } from '../support/expected-crm.ts';
import { freePort } from '../support/free-port.ts';
import { historiesText, secretsFound } from '../support/secret-scan.ts';
import { expectedCrmState } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];
/** Each commerce call waits this long, so the backfill runs long enough to be cut twice (about half a minute). */
const COMMERCE_LATENCY_MS = 40;
const ENTITLEMENTS = CHAOS_FULL ? 10_000 : 1_200;
const KINDS: typeof CRMS_UNDER_TEST = CHAOS_FULL ? CRMS_UNDER_TEST : ['salesforce'];

describe.each(KINDS)('a backfill into %s survives a restart of Temporal and one of PostgreSQL', (kind) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `crm-sync-restarts-${kind}-`));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const temporalDb = path.join(dataDir, 'temporal', 'state.db');
  let temporalPort: number;
  let postgresPort: number;
  let temporal: TemporalDevServer;
  let postgres: EmbeddedPostgresHandle;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  const workers: ChildProcess[] = [];
  const workerOutput: string[] = [];

  const startTemporal = () => startTemporalDevServer({ port: temporalPort, dbFile: temporalDb, logger: quietLogger, cliPath: process.env.TEMPORAL_CLI_PATH });
  const startPostgres = () => startEmbeddedPostgres({ dataDir, port: postgresPort, logger: quietLogger });

  beforeAll(async () => {
    [temporalPort, postgresPort] = [await freePort(), await freePort()];
    [temporal, postgres, sandboxes] = await Promise.all([startTemporal(), startPostgres(), startSandboxesFor(kind, { entitlements: ENTITLEMENTS, seed: 43 })]);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE restarts');
    await admin.end();
    const url = new URL(postgres.url);
    url.pathname = '/restarts';
    const pool = createPool(url.toString());
    await migrate(pool, quietLogger);
    database = { url: url.toString(), pool, drop: async () => {} };
  }, 180_000);

  afterAll(async () => {
    // The worker's log lines, for whoever reads a failure (test-artifacts/ is not committed).
    mkdirSync('test-artifacts', { recursive: true });
    writeFileSync(path.join('test-artifacts', `service-restarts-${kind}.log`), workerOutput.join('\n'));
    for (const worker of workers) worker.kill('SIGKILL');
    await database?.pool.end().catch(() => {});
    await sandboxes?.stop();
    await temporal?.stop();
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes with exactly the expected records, and no secret in its history or logs', { timeout: CHAOS_FULL ? 1_800_000 : 600_000 }, async () => {
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 200 });
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: '*', latencyMs: COMMERCE_LATENCY_MS }) });
    const taskQueue = `restarts-${kind}`;
    const env = { TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env, workerOutput));
    // A worker that dies fails the test at once, with its last words.
    const died = new Promise<never>((_, reject) => workers[0]!.once('exit', (code, signal) => reject(new Error(`the worker process exited (${code ?? signal}) during the restarts; its last lines:\n${workerOutput.slice(-15).join('\n')}`))));
    died.catch(() => {});

    let connection = await Connection.connect({ address: temporal.address });
    const request = { connectionId, entities: ENTITIES };
    const workflowId = backfillWorkflowId(request);
    await new Client({ connection }).workflow.start(WORKFLOW_TYPES.backfill, { taskQueue, workflowId, args: [{ ...request, activityTimeouts: { heartbeat: '10 seconds' } }] });
    const progress = async (): Promise<SyncProgress | undefined> => readProgress(new Client({ connection }).workflow.getHandle(workflowId)).catch(() => undefined);
    const untilPages = async (pages: number) => {
      for (;;) {
        const now = await progress();
        if (now && (now.totals.pages >= pages || now.finished)) return now;
        await sleep(200);
      }
    };

    // Temporal goes away while the buyers' and contacts' pages are being written, and comes back.
    const beforeTemporal = await untilPages(3);
    expect(beforeTemporal.finished, 'the backfill was still running when Temporal stopped').toBeFalsy();
    await connection.close();
    await temporal.stop();
    await sleep(3000);
    temporal = await startTemporal();
    connection = await Connection.connect({ address: temporal.address });

    // Then PostgreSQL, a few pages later.
    const beforePostgres = await untilPages(beforeTemporal.totals.pages + 3);
    expect(beforePostgres.finished, 'the backfill was still running when PostgreSQL stopped').toBeFalsy();
    await postgres.stop();
    await sleep(3000);
    postgres = await startPostgres();

    const result: SyncProgress = await Promise.race([new Client({ connection }).workflow.getHandle(workflowId).result(), died]);
    expect(result.finished).toBe(true);
    expect(result.totals.pages).toBeGreaterThan(beforePostgres.totals.pages);
    // The same worker process carried the run across both restarts.
    expect(workers).toHaveLength(1);
    expect(workers[0]!.exitCode).toBeNull();

    // No duplicate, none missing, none stale: every entity as the CRM's witness says, the records it
    // expects refused (referrals naming another org's opportunity) waiting as dead letters, each once;
    // and the CRM ids written back onto the commerce records.
    const rejected = await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce);
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort()).toEqual(rejected);
    await sandboxes.crm.expectWriteBack(sandboxes.commerce);
    for (const entity of ENTITIES) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      const keyed = await sandboxes.crm.keyed(entity);
      const refused = rejected.filter((key) => key.startsWith(`${entity}:`)).length;
      expect(keyed.size + refused, `${entity}: one CRM record per commerce record`).toBe(expected.size);
    }

    const secrets = { commerceClientSecret: sandboxes.commerce.clientSecret, ...sandboxes.crm.secrets(), postgresPassword: decodeURIComponent(new URL(database.url).password) };
    const texts = { 'Temporal history': await historiesText(new Client({ connection }), [workflowId]), 'worker log': workerOutput.join('\n') };
    expect(texts['Temporal history']).toContain(connectionId);
    expect(secretsFound(texts, secrets)).toEqual([]);
    await connection.close();
    workers[0]!.kill('SIGTERM');
    await waitForExit(workers[0]!);
  });
});
