// A real Temporal server (go.temporal.io/server, built with go install) on PostgreSQL, set up with its own
// schema tool, running this project's sync: two worker processes share a backfill against the sandboxes,
// the result is exact, and the workflow's history and visibility rows are in PostgreSQL.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findTemporalServer } from '../../infra/temporal-server-binary.ts';
import { startTemporalServer, type RunningTemporalServer } from '../../infra/temporal-server.ts';
import { startBackfill } from '../../temporal/sync-schedules.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';
import { createSandboxConnection, expectedCrmState, salesforceDump, startSandboxes } from '../support/sync-harness.ts';
import { waitFor } from '../support/start-process.ts';
import { startWorkerProcess } from '../support/worker-process.ts';
import { dropTemporalDatabases } from './support/temporal-databases.ts';

// The first run builds the server with go install (several minutes on two cores); later runs find it cached.
const BUILD_TIMEOUT_MS = 30 * 60_000;

describe('a Temporal server on PostgreSQL (not the dev server)', () => {
  const suffix = randomBytes(4).toString('hex');
  const databases = { database: `temporal_${suffix}`, visibilityDatabase: `temporal_visibility_${suffix}` };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-temporal-server-'));
  let server: RunningTemporalServer;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startTemporalServer({ databaseUrl: inject('postgresServerUrl'), dataDir, logger: quietLogger, databases });
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 300, seed: 29 });
    connection = await Connection.connect({ address: server.address });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await server?.stop();
    await sandboxes?.stop();
    await database?.drop();
    await dropTemporalDatabases(inject('postgresServerUrl'), Object.values(databases));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('its dynamic config turns on priority and fairness with keys the server knows', async () => {
    const file = path.join(dataDir, 'config', 'dynamic.yaml');
    // Names and values as go.temporal.io/server v1.29 common/dynamicconfig/constants.go spells them.
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^matching\.useNewMatcher:\n {2}- value: true$/m);
    expect(text).toMatch(/^matching\.enableFairness:\n {2}- value: true$/m);
    const found = await findTemporalServer({ allowBuild: false });
    const checked = spawnSync(found!.server, ['validate-dynamic-config', file], { encoding: 'utf8' });
    const output = `${checked.stdout}${checked.stderr}`;
    expect(checked.status, output).toBe(0);
    // A misspelt key is only a warning ("unregistered key"), which the server would then ignore.
    expect(output).not.toMatch(/warning|error/);
  });

  it('keeps the PostgreSQL password out of its config files', () => {
    const password = decodeURIComponent(new URL(inject('postgresServerUrl')).password);
    expect(password.length, 'this check needs a PostgreSQL URL with a password (the embedded one has a random one)').toBeGreaterThan(0);
    for (const file of ['server.yaml', 'dynamic.yaml']) expect(readFileSync(path.join(dataDir, 'config', file), 'utf8')).not.toContain(password);
  });

  it('runs a backfill on two workers to the exact expected state, its history in PostgreSQL', async () => {
    const { id: connectionId } = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 50 });
    const taskQueue = `temporal-server-${suffix}`;
    const env = { TEMPORAL_ADDRESS: server.address, DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('one', env), await startWorkerProcess('two', env));
    const client = new Client({ connection });
    const handle = await startBackfill(client, taskQueue, { connectionId, entities: ['buyer', 'offer', 'entitlement'] });
    const result = await handle.result();
    expect(result.totals.failed).toBe(0);

    const history = await handle.fetchHistory();
    const identities = new Set(history.events!.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes!.identity!.split('-')[0]));
    expect(identities).toEqual(new Set(['one', 'two']));

    for (const [entity, object, field] of [['buyer', 'Account', 'Commerce_Buyer_Id__c'], ['offer', 'Opportunity', 'Commerce_Offer_Id__c'], ['entitlement', 'Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c']] as const) {
      const expected = await expectedCrmState(sandboxes.commerce, entity);
      const stored = await salesforceDump(sandboxes.salesforce, object);
      expect(stored.map((record) => record[field]).sort()).toEqual([...expected.keys()].sort());
    }

    // The workflow lives in Temporal's own PostgreSQL databases: its mutable state, the events of its
    // history (as many as the server answered above), and its visibility row, closed as completed.
    const runId = handle.firstExecutionRunId.replaceAll('-', '');
    await withDatabase(databases.database, async (temporal) => {
      const executions = await temporal.query("SELECT next_event_id FROM executions WHERE workflow_id = $1 AND run_id = decode($2, 'hex')", [handle.workflowId, runId]);
      expect(executions.rows).toHaveLength(1);
      expect(Number(executions.rows[0].next_event_id)).toBe(history.events!.length + 1);
      const nodes = await temporal.query("SELECT count(*)::int AS count FROM history_node WHERE tree_id = decode($1, 'hex')", [runId]);
      expect(nodes.rows[0].count).toBeGreaterThan(0);
    });
    // Visibility is written after the close, by the server's visibility queue: wait for the row to close.
    const closed = await waitFor('the visibility row of the backfill to close', () =>
      withDatabase(databases.visibilityDatabase, async (visibility) => {
        const rows = await visibility.query('SELECT status, workflow_type_name FROM executions_visibility WHERE workflow_id = $1', [handle.workflowId]);
        return rows.rows.length === 1 && rows.rows[0].status !== 1 /* RUNNING */ ? rows.rows : undefined;
      }),
    );
    expect(closed).toEqual([{ status: 2 /* COMPLETED */, workflow_type_name: history.events![0]!.workflowExecutionStartedEventAttributes!.workflowType!.name }]);
    // The console's list query (admin/console/routes.ts) runs on SQL visibility too.
    const listed = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Completed'` })) listed.push(execution.runId);
    expect(listed).toEqual([handle.firstExecutionRunId]);
  });
});

async function withDatabase<T>(name: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(inject('postgresServerUrl'));
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
