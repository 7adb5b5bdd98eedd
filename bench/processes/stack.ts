// What a benchmark stands on: the sandboxes and the production worker each in a Node process of its own
// (so each one's memory is its own), an embedded PostgreSQL, a local Temporal dev server, and a stored
// connection between the sandboxes. stop() takes everything down, whatever was already stopped.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../config/logger.ts';
import { WORKER_ENV, WORKER_NODE_FLAGS } from '../../config/node-flags.ts';
import { startEmbeddedPostgres } from '../../infra/embedded-postgres.ts';
import { startTemporalDevServer } from '../../infra/temporal-dev-server.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createPool } from '../../store/database.ts';
import { migrate } from '../../store/migrate.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSecrets } from '../../sync/connection-settings.ts';
import type { CrmKind } from '../crm-calls.ts';
import { startChild, type BenchChild } from './ipc.ts';
import { freePort } from '../../test/support/free-port.ts';

export type SandboxesDescription = {
  commerce: { apiUrl: string; authUrl: string; clientId: string; clientSecret: string; organizationId: string; controlUrl: string };
  salesforce: { loginUrl: string; instanceUrl: string; clientId: string; clientSecret: string; controlUrl: string };
  hubspot: { baseUrl: string; accessToken: string; controlUrl: string };
  dynamics: { orgUrl: string; authority: string; tenantId: string; clientId: string; clientSecret: string; controlUrl: string };
};

/** `crm`: the CRM sandbox the connection writes to (Salesforce unless told; HubSpot and Dynamics are set up first, as `crm-sync setup` would). */
export async function startBenchStack(options: { name: string; entitlements: number; secretKey: Buffer; settings?: Record<string, unknown>; workerExecArgv?: string[]; crm?: CrmKind }) {
  const logger = createLogger({ level: 'warn', format: 'json' });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `crm-sync-${options.name}-`));
  chmodSync(dataDir, 0o755);
  const started: { stop: () => Promise<void> }[] = [];
  const children: BenchChild<unknown>[] = [];
  const stop = async () => {
    for (const child of children) child.kill();
    for (const part of started.reverse()) await part.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The sandboxes generate their data while PostgreSQL and Temporal start.
    const sandboxesStarting = startChild<SandboxesDescription>(path.join(import.meta.dirname, 'sandboxes.ts'), { args: [String(options.entitlements), '1'] });
    const [postgres, temporal, sandboxes] = await Promise.all([
      startEmbeddedPostgres({ dataDir, port: await freePort(), logger }),
      startTemporalDevServer({ port: await freePort(), logger }),
      sandboxesStarting,
    ]);
    started.push(postgres, temporal);
    children.push(sandboxes);
    const { commerce, salesforce, hubspot, dynamics } = sandboxes.info;
    const pool = createPool(postgres.url);
    started.push({ stop: () => pool.end() });
    await migrate(pool, logger);
    const kind = options.crm ?? 'salesforce';
    await prepareCrm(sandboxes.info, kind);
    const { settings, secrets } = benchConnection(sandboxes.info, kind, options.settings);
    const { id: connectionId } = await createConnectionStore(pool, new SecretBox(options.secretKey)).create({
      name: options.name,
      crmKind: kind,
      settings,
      secrets,
    });
    const worker = await startChild<{ pid: number }>(path.join(import.meta.dirname, 'worker.ts'), {
      env: { ...WORKER_ENV, BENCH_TEMPORAL_ADDRESS: temporal.address, BENCH_DATABASE_URL: postgres.url, BENCH_TASK_QUEUE: options.name, BENCH_SECRET_KEY: options.secretKey.toString('base64') },
      execArgv: options.workerExecArgv ?? [...WORKER_NODE_FLAGS],
    });
    children.push(worker);
    const connection = await Connection.connect({ address: temporal.address });
    started.push({ stop: () => connection.close() });
    return {
      commerce,
      salesforce,
      hubspot,
      dynamics,
      sandboxes,
      worker,
      pool,
      connectionId,
      taskQueue: options.name,
      temporalAddress: temporal.address,
      client: new Client({ connection }),
      /** Waits for `work` unless a child process dies first (then fails with its reason). */
      alive: <R>(work: Promise<R>) => sandboxes.whileAlive(worker.whileAlive(work)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

/** What `crm-sync setup` would create in a HubSpot account or a Dataverse environment before the first sync. */
export async function prepareCrm(sandboxes: SandboxesDescription, kind: CrmKind): Promise<void> {
  const { hubspot, dynamics } = sandboxes;
  if (kind === 'salesforce') await salesforceConditions(sandboxes.salesforce.controlUrl);
  if (kind === 'hubspot') await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
  if (kind === 'dynamics') {
    const credentials = { kind: 'dynamics', orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` } as const;
    await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials });
  }
}

/**
 * A real org is shared and slow where the sandbox is not (issue #23): BENCH_SALESFORCE_LOCK_RATE (default
 * 0.01) of child rows meet another transaction's lock on their parent, and BENCH_SALESFORCE_QUERY_MS_PER_1000
 * (default 120: a table scan of 1,000,000 rows passes Salesforce's two minutes, as a non-selective query
 * does on a large org) is charged per thousand rows a query scans, BENCH_SALESFORCE_QUERY_REAL_SHARE (default
 * 0.05) of it really waited. Both 0 measure the sandbox as it answers without them.
 */
async function salesforceConditions(controlUrl: string): Promise<void> {
  const setting = (name: string, fallback: number) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`The Salesforce sandbox refused ${path}: ${response.status} ${await response.text()}`);
  };
  await post('/row-locks', { failureRate: setting('BENCH_SALESFORCE_LOCK_RATE', 0.01) });
  await post('/query-cost', { msPerThousandRows: setting('BENCH_SALESFORCE_QUERY_MS_PER_1000', 120), realTimeShare: setting('BENCH_SALESFORCE_QUERY_REAL_SHARE', 0.05) });
}

/** A connection's settings and secrets between the bench sandboxes' commerce organization and one CRM sandbox. */
export function benchConnection(sandboxes: SandboxesDescription, kind: CrmKind, extra: Record<string, unknown> = {}) {
  const { commerce, salesforce, hubspot, dynamics } = sandboxes;
  const crm = {
    salesforce: { loginUrl: salesforce.loginUrl, clientId: salesforce.clientId },
    hubspot: { kind, baseUrl: hubspot.baseUrl, auth: 'private-app' },
    dynamics: { kind: 'dynamics', orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId },
  }[kind];
  const crmSecrets: Partial<ConnectionSecrets> = { salesforce: { crmClientSecret: salesforce.clientSecret }, hubspot: { crmAccessToken: hubspot.accessToken }, dynamics: { crmClientSecret: dynamics.clientSecret } }[kind];
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
    crm,
    schedule: { lookbackSeconds: 0 },
    ...extra,
  });
  const secrets = connectionSecretsSchema.parse({ commerceClientSecret: commerce.clientSecret, ...crmSecrets });
  return { settings, secrets };
}
