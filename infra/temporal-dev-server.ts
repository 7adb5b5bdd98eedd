// Starts a local Temporal dev server (the Temporal CLI's `server start-dev`) when no cluster is configured.
// State lives in a SQLite file under the data directory, so a restart resumes schedules and workflows.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { findTemporalCli } from './temporal-cli.ts';
import { MATCHING_PRIORITY_CONFIG } from '../temporal/matching-config.ts';
import { stopChild } from './stop-child.ts';

export type TemporalDevServer = {
  address: string;
  uiUrl?: string;
  /** Where the CLI came from, for the start-up report. */
  origin: string;
  stop(): Promise<void>;
};

export type DevServerOptions = {
  /** SQLite state file; omitted means in-memory (tests). */
  dbFile?: string;
  port: number;
  uiPort?: number;
  cliPath?: string;
  namespace?: string;
  logger: Logger;
  readyTimeoutMs?: number;
  /** Dynamic config values (`--dynamic-config-value`), e.g. a low `limit.historyCount.suggestContinueAsNew` for a test. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /**
   * Whether matching honours task priority and fairness (temporal/matching-config.ts; default true, as
   * every connection's schedules and backfills carry them). false runs the server's default matcher,
   * which dispatches in arrival order: only the fairness benchmark's comparison run asks for it.
   */
  priorityMatching?: boolean;
};

/** The dynamic config the server starts with: the priority and fairness keys, then the caller's own. */
function dynamicConfigOf(options: DevServerOptions): Record<string, string | number | boolean> {
  return { ...(options.priorityMatching === false ? {} : MATCHING_PRIORITY_CONFIG), ...options.dynamicConfig };
}

export async function startTemporalDevServer(options: DevServerOptions): Promise<TemporalDevServer> {
  const { logger } = options;
  const cli = await findTemporalCli({
    explicitPath: options.cliPath,
    onProgress: (message) => logger.info({ component: 'temporal-cli' }, message),
  });
  if (!cli) {
    logger.warn('No Temporal CLI could be found or built; falling back to the SDK download of the dev server');
    return startWithSdkDownload(options);
  }
  logger.debug({ cli }, 'Using the Temporal CLI');
  return spawnDevServer(cli.path, `${cli.source}: ${cli.path}`, options);
}

async function spawnDevServer(executable: string, origin: string, options: DevServerOptions): Promise<TemporalDevServer> {
  const { logger } = options;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-format', 'json', '--log-level', 'warn'];
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.namespace && options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const [key, value] of Object.entries(dynamicConfigOf(options))) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream! }).on('line', (line) => {
      output.push(line);
      if (output.length > 40) output.shift();
      logger.debug({ component: 'temporal' }, line);
    });
  }
  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(address, child, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(
      `The Temporal dev server did not start on ${address}: ${(error as Error).message}. ` +
        `Is the port taken (set CRM_SYNC_TEMPORAL_PORT)?\n${output.slice(-10).join('\n')}`,
    );
  }
  // Last resort if this process exits without the ordered shutdown: never leave the server behind.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', onExit);
  return {
    address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    origin,
    stop: () => {
      process.removeListener('exit', onExit);
      return stopChild(child, 10_000);
    },
  };
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server process exited (code ${child.exitCode ?? child.signalCode})`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await sleep(250);
    }
  }
  throw new Error(`not ready after ${timeoutMs} ms (${(lastError as Error)?.message ?? 'no answer'})`);
}


/** Last resort: the SDK downloads the CLI itself (needs temporal.download, unreachable on some networks). */
async function startWithSdkDownload(options: DevServerOptions): Promise<TemporalDevServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      dbFilename: options.dbFile,
      ui: Boolean(options.uiPort),
      uiPort: options.uiPort,
      namespace: options.namespace,
      extraArgs: Object.entries(dynamicConfigOf(options)).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    },
  });
  return {
    address: environment.address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    origin: 'SDK download',
    stop: () => environment.teardown(),
  };
}
