// Starts the real services the tests run against, once per `npm test`:
// - a Temporal dev server from the Temporal CLI (found or built exactly as `npm start` does), in memory;
// - PostgreSQL: a fresh database on TEST_DATABASE_URL / DATABASE_URL when set, else an embedded server.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../../config/logger.ts';
import { startEmbeddedPostgres } from '../../infra/embedded-postgres.ts';
import { startTemporalDevServer } from '../../infra/temporal-dev-server.ts';
import { PREBUILT_WORKFLOW_BUNDLE_ENV, writeWorkflowBundleFile } from '../../temporal/workflow-bundle.ts';
import { freePort } from './free-port.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    /** A server-level URL; each test file creates its own database on it (see database.ts). */
    postgresServerUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'warn', format: 'json' });
  const cleanups: (() => Promise<void>)[] = [];

  // The workflows bundled once for the run: every worker a test or a spawned command starts (they
  // inherit the environment) uses it instead of running webpack again (about 1.5 s of CPU each).
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-test-bundle-'));
  cleanups.push(async () => rmSync(bundleDir, { recursive: true, force: true }));
  const bundleFile = path.join(bundleDir, 'workflows.json');
  await writeWorkflowBundleFile(path.join(import.meta.dirname, '..', '..', 'workflows', 'index.ts'), bundleFile, (level, message) => logger[level](message));
  process.env[PREBUILT_WORKFLOW_BUNDLE_ENV] = bundleFile;

  const temporal = await startTemporalDevServer({ port: await freePort(), logger, cliPath: process.env.TEMPORAL_CLI_PATH });
  cleanups.push(() => temporal.stop());
  project.provide('temporalAddress', temporal.address);

  const externalUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (externalUrl) {
    project.provide('postgresServerUrl', externalUrl);
  } else {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-test-'));
    chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
    const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger });
    cleanups.push(async () => {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    project.provide('postgresServerUrl', embedded.url);
  }
  await assertReachable(project.getProvidedContext().postgresServerUrl);

  return async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
}

async function assertReachable(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.end();
}
