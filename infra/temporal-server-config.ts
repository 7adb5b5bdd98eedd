// The Temporal server's two files: its static config (PostgreSQL persistence through the `postgres12`
// plugin, the four services of a single node in one process) and its dynamic config (priority and
// fairness on the matching service). The PostgreSQL password is never written to disk: the config is a
// template (`# enable-template`, rendered by the server with sprig) that reads it from the environment.
import { matchingPriorityConfigYaml } from '../temporal/matching-config.ts';

export const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type ServicePorts = { grpc: number; membership: number; http?: number };
export type ServerPorts = Record<(typeof SERVICES)[number], ServicePorts>;

/**
 * Where the server finds PostgreSQL; the password travels in PASSWORD_VARIABLE, not here. `tls` encrypts;
 * `verifyCertificate` also checks the server's certificate and host name (sslmode verify-ca/verify-full).
 */
export type PostgresTarget = { host: string; port: number; user: string; password: string; tls: boolean; verifyCertificate: boolean; database: string; visibilityDatabase: string };

export const PASSWORD_VARIABLE = 'CRM_SYNC_TEMPORAL_SQL_PASSWORD';

/**
 * DATABASE_URL style (postgres://user:password@host:port/ignored?sslmode=...) to what the server and its
 * SQL tool take. The URL's own database is not used: Temporal keeps its state in databases of its own.
 */
export function postgresTarget(databaseUrl: string, names: { database: string; visibilityDatabase: string }): PostgresTarget {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('The database URL for the Temporal server is not a URL (expected postgres://user:password@host:5432/db)');
  }
  if (!['postgres:', 'postgresql:'].includes(url.protocol)) throw new Error(`The database URL for the Temporal server must start with postgres:// (it starts with ${url.protocol}//)`);
  const sslmode = url.searchParams.get('sslmode') ?? 'disable';
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    tls: ['require', 'verify-ca', 'verify-full'].includes(sslmode),
    // Temporal's SQL plugin skips certificate checks unless enableHostVerification is set, and has no
    // CA-only mode: verify-ca gets the stricter verify-full check. `require` stays as libpq has it,
    // encrypted without checking whom it talks to.
    verifyCertificate: ['verify-ca', 'verify-full'].includes(sslmode),
    ...names,
  };
}

export type ServerConfigInput = {
  postgres: PostgresTarget;
  ports: ServerPorts;
  dynamicConfigFile: string;
  /** Fixed when the cluster is first created; 4 suits one host, production clusters pick 512 or more. */
  historyShards: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
};

export function renderServerConfig(input: ServerConfigInput): string {
  const { postgres, ports } = input;
  const tls = !postgres.tls
    ? ''
    : `\n        tls:\n          enabled: true${postgres.verifyCertificate ? `\n          enableHostVerification: true\n          serverName: ${quoted(postgres.host)}` : ''}`;
  const datastore = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${quoted(database)}
        connectAddr: ${quoted(`${postgres.host}:${postgres.port}`)}
        connectProtocol: tcp
        user: ${quoted(postgres.user)}
        password: {{ env "${PASSWORD_VARIABLE}" | quote }}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h${tls}`;
  const service = (name: (typeof SERVICES)[number]) => {
    const port = ports[name];
    return `
  ${name}:
    rpc:
      grpcPort: ${port.grpc}
      membershipPort: ${port.membership}${port.http ? `\n      httpPort: ${port.http}` : ''}
      bindOnLocalHost: true`;
  };
  const frontend = `127.0.0.1:${ports.frontend.grpc}`;
  return `# enable-template (the PostgreSQL password is read from ${PASSWORD_VARIABLE}, never stored here)
# Written by crm-sync for a single-node Temporal server on PostgreSQL; rewritten on every start.
log:
  stdout: true
  level: ${input.logLevel}
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${input.historyShards}
  datastores:
    postgres-default:${datastore(postgres.database, 20)}
    postgres-visibility:${datastore(postgres.visibilityDatabase, 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:${SERVICES.map(service).join('')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: ${quoted(frontend)}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${quoted(input.dynamicConfigFile)}
  pollInterval: 10s
`;
}

/**
 * Priority and fairness on the matching service (the same keys the dev server gets), and ids capped at
 * 255 characters, the width of the PostgreSQL schema's id columns (as the server's own development-sql
 * config does), so a too-long id is refused by name rather than by a database error.
 */
export function renderDynamicConfig(): string {
  return `# Written by crm-sync; the server re-reads it every 10 s.
${matchingPriorityConfigYaml()}limit.maxIDLength:
  - value: 255
`;
}

/** YAML double-quoted scalar: JSON's string syntax is a subset of it. */
function quoted(value: string): string {
  return JSON.stringify(value);
}
