// A real Temporal server (not the dev server) on a PostgreSQL we are given: the four services of one node
// in one process, its history and visibility in two PostgreSQL databases of its own. Used by the deploy
// test and by `crm-sync temporal-server --run`; a production cluster runs the same binary and schema tool
// with its own config (docs/deployment.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import type { Logger } from '../config/logger.ts';
import { findTemporalServer } from './temporal-server-binary.ts';
import { PASSWORD_VARIABLE, postgresTarget, renderDynamicConfig, renderServerConfig, SERVICES, type PostgresTarget, type ServerPorts } from './temporal-server-config.ts';
import { setUpTemporalSchemas } from './temporal-server-schema.ts';
import { childEnvironment, redacted } from './temporal-child-environment.ts';
import { stopChild } from './stop-child.ts';

/** The server's own shutdown (membership leave, queues drained) gets this long before SIGKILL. */
const SERVER_STOP_GRACE_MS = 20_000;

export type TemporalServerOptions = {
  /** A PostgreSQL URL whose user may create databases; its own database is only used to connect. */
  databaseUrl: string;
  /** Where the server's config files go (rewritten on each start). */
  dataDir: string;
  logger: Logger;
  /** Temporal's two databases (default temporal and temporal_visibility). */
  databases?: { database: string; visibilityDatabase: string };
  namespace?: string;
  /** The frontend's gRPC port; omitted means a free one is picked. */
  port?: number;
  serverPath?: string;
  historyShards?: number;
  readyTimeoutMs?: number;
};

export type RunningTemporalServer = {
  /** host:port of the frontend, for TEMPORAL_ADDRESS. */
  address: string;
  version?: string;
  databases: { database: string; visibilityDatabase: string };
  stop(): Promise<void>;
};

const PORT_ATTEMPTS = 5;

export async function startTemporalServer(options: TemporalServerOptions): Promise<RunningTemporalServer> {
  const { logger } = options;
  const found = await findTemporalServer({ explicitPath: options.serverPath, onProgress: (message) => logger.info({ component: 'temporal-server' }, message) });
  if (!found) throw new Error('No Temporal server could be found or built (see the messages above); set TEMPORAL_SERVER_PATH to a temporal-server with temporal-sql-tool beside it');
  const databases = options.databases ?? { database: 'temporal', visibilityDatabase: 'temporal_visibility' };
  const target = postgresTarget(options.databaseUrl, databases);
  await setUpTemporalSchemas(found.sqlTool, target, options.databaseUrl, logger);

  const configDir = path.join(options.dataDir, 'config');
  mkdirSync(configDir, { recursive: true });
  const dynamicConfigFile = path.join(configDir, 'dynamic.yaml');
  writeFileSync(dynamicConfigFile, renderDynamicConfig());

  // Temporal's config takes fixed ports (port 0 would be announced to the cluster as 0), so we pick free
  // ones and, should another process take one before the server binds it, pick again.
  for (let attempt = 1; ; attempt += 1) {
    const ports = await freeServerPorts(options.port);
    writeFileSync(path.join(configDir, 'server.yaml'), renderServerConfig({ postgres: target, ports, dynamicConfigFile, historyShards: options.historyShards ?? 4, logLevel: 'warn' }), { mode: 0o600 });
    const outcome = await launch(found.server, options.dataDir, target, ports, options.readyTimeoutMs ?? 120_000, logger);
    if ('child' in outcome) {
      const address = `127.0.0.1:${ports.frontend.grpc}`;
      try {
        await registerNamespace(address, options.namespace ?? 'default', options.readyTimeoutMs ?? 120_000);
      } catch (error) {
        await stopChild(outcome.child, SERVER_STOP_GRACE_MS);
        throw error;
      }
      logger.info({ address, version: found.version, databases }, 'Temporal server running on PostgreSQL');
      const onExit = () => {
        if (outcome.child.exitCode === null && outcome.child.signalCode === null) outcome.child.kill('SIGTERM');
      };
      process.on('exit', onExit);
      return {
        address,
        version: found.version,
        databases,
        stop: () => {
          process.removeListener('exit', onExit);
          return stopChild(outcome.child, SERVER_STOP_GRACE_MS);
        },
      };
    }
    if (!outcome.portTaken || attempt >= PORT_ATTEMPTS || options.port) {
      throw new Error(`The Temporal server did not start: ${outcome.reason}\n${outcome.output.join('\n')}`);
    }
    logger.debug({ attempt }, 'A port the Temporal server was given was taken meanwhile; picking others');
  }
}

type LaunchOutcome = { child: ChildProcess } | { portTaken: boolean; reason: string; output: string[] };

async function launch(server: string, root: string, target: PostgresTarget, ports: ServerPorts, timeoutMs: number, logger: Logger): Promise<LaunchOutcome> {
  const child = spawn(server, ['--root', root, '--config', 'config', '--env', 'server', '--allow-no-auth', 'start'], {
    // Only what the server needs: the password its config template reads, not our secret key or token.
    env: childEnvironment({ [PASSWORD_VARIABLE]: target.password }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let portTaken = false;
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (raw) => {
      // A connection error may quote the password; the lines go to our log and into a startup error.
      const line = redacted(raw, target.password);
      if (/address already in use/i.test(line)) portTaken = true;
      output.push(line);
      if (output.length > 20) output.shift();
      logger.debug({ component: 'temporal-server' }, line);
    });
  }
  const address = `127.0.0.1:${ports.frontend.grpc}`;
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null || portTaken) {
      await stopChild(child, SERVER_STOP_GRACE_MS);
      return { portTaken, reason: portTaken ? 'a port was taken' : `the server exited (code ${child.exitCode ?? child.signalCode})`, output };
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return { child };
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = (error as Error).message;
      await sleep(250);
    }
  }
  await stopChild(child, SERVER_STOP_GRACE_MS);
  return { portTaken: false, reason: `no answer on ${address} after ${timeoutMs} ms (${lastError})`, output };
}

/**
 * The `default` namespace, as the dev server has it (a real server starts with none). A new namespace
 * reaches the frontend's namespace cache within seconds; we wait until a call naming it succeeds.
 */
async function registerNamespace(address: string, namespace: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        // Retried with the check: just after start the frontend may still lack a history host to ask.
        await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') }).catch((error: { code?: number }) => {
          if (error.code !== 6 /* ALREADY_EXISTS: registered by an earlier try or start */) throw error;
        });
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`The Temporal namespace ${namespace} is not served ${timeoutMs} ms after the server started: ${(error as Error).message}`);
        await sleep(250);
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * PostgreSQL's schema keeps each membership port in a SMALLINT (cluster_membership.rpc_port), so those must
 * be at most 32767, below Linux's ephemeral range (32768 and up): we try random ports under it. gRPC and
 * HTTP ports have no such limit and come from the OS.
 */
const MEMBERSHIP_PORTS = { from: 10_000, to: 32_767 } as const;

/** Distinct free ports for every service's gRPC and membership listener and the frontend's HTTP API. */
async function freeServerPorts(frontendPort?: number): Promise<ServerPorts> {
  // Held open together so that no two are the same.
  const servers: net.Server[] = [];
  const listen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        servers.push(server);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const any = async () => {
    const port = await listen(0);
    if (!port) throw new Error('No free TCP port on 127.0.0.1 for the Temporal server');
    return port;
  };
  const membership = async () => {
    for (let tries = 0; tries < 200; tries += 1) {
      const port = await listen(MEMBERSHIP_PORTS.from + Math.floor(Math.random() * (MEMBERSHIP_PORTS.to - MEMBERSHIP_PORTS.from + 1)));
      if (port) return port;
    }
    throw new Error(`No free TCP port between ${MEMBERSHIP_PORTS.from} and ${MEMBERSHIP_PORTS.to} on 127.0.0.1 for the Temporal server's membership`);
  };
  try {
    const ports = {} as ServerPorts;
    for (const service of SERVICES) {
      ports[service] = { grpc: service === 'frontend' && frontendPort ? frontendPort : await any(), membership: await membership() };
    }
    ports.frontend.http = await any();
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
