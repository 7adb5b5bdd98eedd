// What the freshness and co-sell benchmarks stand on, in the bench's own process: a database of their
// own on a shared PostgreSQL, the commerce sandbox and one CRM sandbox as the tests start them (their
// CrmUnderTest handle makes opportunities as a seller's tool would), a stored connection between them
// and the production worker on a shared Temporal server. Services shared across CRMs: `services()`.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import pg from 'pg';
import { createLogger } from '../../config/logger.ts';
import { startEmbeddedPostgres } from '../../infra/embedded-postgres.ts';
import { startTemporalDevServer } from '../../infra/temporal-dev-server.ts';
import { createPool } from '../../store/database.ts';
import { migrate } from '../../store/migrate.ts';
import { createSyncWorker } from '../../worker.ts';
import { createCrmConnection, startSandboxesFor, type CrmUnderTestKind } from '../../test/support/crm-sandbox.ts';
import { DEFAULT_OPERATION_MS } from '../../sandbox/dynamics/index.ts';
import { TEST_SECRET_BOX } from '../../test/support/sync-harness.ts';
import { freePort } from '../../test/support/free-port.ts';

const logger = createLogger({ level: 'warn', format: 'json' });

/** One embedded PostgreSQL and one Temporal dev server for a whole bench. */
export async function startServices(name: string) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `crm-sync-${name}-`));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger });
  const temporal = await startTemporalDevServer({ port: await freePort(), logger });
  return {
    postgresUrl: postgres.url,
    temporalAddress: temporal.address,
    async stop() {
      await temporal.stop();
      await postgres.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startInProcessStack(kind: CrmUnderTestKind, services: { postgresUrl: string; temporalAddress: string }, options: { name: string; entitlements: number; seed: number }) {
  const database = `crm_sync_${options.name}_${kind}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: services.postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(services.postgresUrl);
  url.pathname = `/${database}`;
  const pool = createPool(url.toString());
  await migrate(pool, logger);
  // Dataverse at its realistic server time per operation (the test harness's default is 0), or BENCH_DYNAMICS_OPERATION_MS.
  const operationMs = process.env.BENCH_DYNAMICS_OPERATION_MS === undefined ? DEFAULT_OPERATION_MS : Number(process.env.BENCH_DYNAMICS_OPERATION_MS);
  const sandboxes = await startSandboxesFor(kind, { entitlements: options.entitlements, seed: options.seed }, kind === 'dynamics' ? { sandbox: { operationMs } } : {});
  const connectionId = (await createCrmConnection({ url: url.toString(), pool, drop: async () => {} }, sandboxes.commerce, sandboxes.crm, {})).id;
  const taskQueue = `${options.name}-${kind}`;
  const nativeConnection = await NativeConnection.connect({ address: services.temporalAddress });
  const worker = await createSyncWorker({ connection: nativeConnection, namespace: 'default', taskQueue, pool, secretBox: TEST_SECRET_BOX });
  const running = worker.run();
  const connection = await Connection.connect({ address: services.temporalAddress });
  const client = new Client({ connection });
  return {
    pool,
    commerce: sandboxes.commerce,
    crm: sandboxes.crm,
    connectionId,
    taskQueue,
    client,
    /** Runs one workflow of this connection to its end. */
    run: (type: string): Promise<any> => client.workflow.execute(type, { taskQueue, workflowId: `${options.name}-${type}-${kind}-${Date.now()}`, args: [{ connectionId }] }),
    async stop() {
      worker.shutdown();
      await running.catch(() => {});
      await nativeConnection.close();
      await connection.close();
      await sandboxes.stop();
      await pool.end();
    },
  };
}
