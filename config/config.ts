// One place that reads the environment. A bad or missing value stops start-up with a message that
// names the variable and what it expects, instead of failing later somewhere deep in a connection.
import path from 'node:path';
import { z } from 'zod';
import { isLoopback } from '../admin/loopback.ts';

const port = z.coerce.number().int().min(1).max(65535);
const PORT_VARIABLES = new Set(['CRM_SYNC_EMBEDDED_PG_PORT', 'CRM_SYNC_TEMPORAL_PORT', 'CRM_SYNC_TEMPORAL_UI_PORT', 'CRM_SYNC_ADMIN_PORT']);
/** A whole number in [min, max]; every failure says so in these words. */
const wholeNumber = (min: number, max: number) => {
  const expected = `a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int({ error: expected }).min(min, { error: expected }).max(max, { error: expected });
};
const optionalText = z.string().trim().min(1).optional();

/** "a, b,c" as ['a', 'b', 'c']; empty entries dropped. */
const commaList = z
  .string()
  .default('')
  .transform((value) => [...new Set(value.split(',').map((entry) => entry.trim()).filter(Boolean))]);

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const environmentSchema = z.object({
  CRM_SYNC_DATA_DIR: z.string().trim().min(1).default('.data'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
    .optional(),
  CRM_SYNC_EMBEDDED_PG_PORT: port.default(54329),
  CRM_SYNC_SECRET_KEY: z
    .string()
    .trim()
    .refine((value) => Buffer.from(value, 'base64').length === 32, '32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_CLI_PATH: optionalText,
  CRM_SYNC_TEMPORAL_PORT: port.default(7233),
  CRM_SYNC_TEMPORAL_UI_PORT: port.default(8233),
  CRM_SYNC_TASK_QUEUE: z.string().trim().min(1).default('crm-sync'),
  CRM_SYNC_HEARTBEAT_EVERY: z
    .string()
    .trim()
    .regex(/^\d+(ms|s|m|h)$/, 'a duration such as 30s, 1m or 2h')
    .default('1m'),
  CRM_SYNC_DEMO: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Which sandbox CRMs the demo connects (a connection each): salesforce, hubspot, dynamics, or several. */
  CRM_SYNC_DEMO_CRMS: z
    .string()
    .default('salesforce')
    .transform((value) => [...new Set(value.split(',').map((kind) => kind.trim()).filter(Boolean))])
    .pipe(z.array(z.enum(['salesforce', 'hubspot', 'dynamics'])).min(1)),
  CRM_SYNC_MAX_CONCURRENT_ACTIVITIES: wholeNumber(1, 1000).default(8),
  // At least 2: the worker polls its sticky queue and the shared queue at once.
  CRM_SYNC_MAX_CONCURRENT_WORKFLOW_TASKS: wholeNumber(2, 1000).default(16),
  // Unset: enough for the activity slots (poolMaxFor).
  CRM_SYNC_DB_POOL_MAX: wholeNumber(1, 1000).optional(),
  /** After SIGTERM, how long running activities may finish before they are cancelled (and retried elsewhere). */
  CRM_SYNC_SHUTDOWN_GRACE: z
    .string()
    .trim()
    .regex(/^\d+(ms|s|m)$/, 'a duration such as 10s, 30s or 2m')
    .default('10s'),
  /** The admin server (/metrics): loopback unless told otherwise; its token from here or the data directory. */
  CRM_SYNC_ADMIN_HOST: z.string().trim().min(1).default('127.0.0.1'),
  CRM_SYNC_ADMIN_PORT: port.default(9464),
  // As long as the generated one (24 random bytes, base64url): the console may be reachable from a network.
  CRM_SYNC_ADMIN_TOKEN: z.string().trim().min(32, 'at least 32 characters (make one with: openssl rand -base64 32)').optional(),
  /** PEM files: with both, the admin server speaks HTTPS (needed once it listens beyond loopback). */
  CRM_SYNC_ADMIN_TLS_CERT: optionalText,
  CRM_SYNC_ADMIN_TLS_KEY: optionalText,
  /** Console sign-in: through the organization's identity provider (OpenID Connect) when an issuer is set. */
  CRM_SYNC_OIDC_ISSUER: z.url({ error: 'a URL such as https://login.example.com/realms/acme (the identity provider\'s issuer)' }).optional(),
  CRM_SYNC_OIDC_CLIENT_ID: optionalText,
  CRM_SYNC_OIDC_CLIENT_SECRET: optionalText,
  CRM_SYNC_OIDC_REDIRECT_URL: z.url({ error: 'the URL of this console\'s /auth/callback as the browser reaches it, e.g. https://crm-sync.example.com/auth/callback' }).optional(),
  CRM_SYNC_OIDC_SCOPES: z.string().trim().min(1).default('openid profile email'),
  CRM_SYNC_OIDC_ROLES_CLAIM: z.string().trim().min(1).default('groups'),
  CRM_SYNC_OIDC_ADMIN_GROUPS: commaList,
  CRM_SYNC_OIDC_OPERATOR_GROUPS: commaList,
  CRM_SYNC_OIDC_VIEWER_GROUPS: commaList,
  /** 'off': the console's sign-in with the admin token is refused (scripts keep their bearer token). */
  CRM_SYNC_ADMIN_LOCAL_SIGN_IN: z.enum(['on', 'off']).default('on'),
  CRM_SYNC_ADMIN_SESSION_LIFETIME: z
    .string()
    .trim()
    .regex(/^\d+(s|m|h)$/, 'a duration such as 30m or 8h')
    .default('12h'),
  LOG_LEVEL: logLevel.default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
});

export type AppConfig = {
  dataDir: string;
  /** poolMax: PostgreSQL connections per process (activities beyond it wait up to 30 s for one). */
  database: { url?: string; embeddedPort: number; poolMax: number };
  secretKey?: Buffer;
  temporal: {
    /** Set when an existing cluster (or Temporal Cloud) is used; otherwise a local dev server starts. */
    address?: string;
    namespace: string;
    cliPath?: string;
    devServerPort: number;
    devServerUiPort: number;
    taskQueue: string;
  };
  heartbeatEvery: string;
  /** What one worker process runs at once (Worker.create's maxConcurrent*TaskExecutions). */
  worker: { maxConcurrentActivities: number; maxConcurrentWorkflowTasks: number };
  /**
   * After SIGTERM, how long the worker lets running activities finish (Worker shutdownGraceTime); then they
   * are cancelled and Temporal retries them on another worker. An orchestrator's kill timeout
   * (terminationGracePeriodSeconds, `podman stop -t`) must exceed it.
   */
  shutdownGraceMs: number;
  /** Demo mode: sandboxes for the commerce API and the CRMs, and a connection to each CRM of `demoCrms`. */
  demo: boolean;
  demoCrms: ('salesforce' | 'hubspot' | 'dynamics')[];
  log: { level: z.infer<typeof logLevel>; format: 'json' | 'pretty' };
  /** The worker's admin server: where it listens, and its token when given in the environment. */
  admin: {
    host: string;
    port: number;
    token?: string;
    tls?: { certFile: string; keyFile: string };
    /** Sign-in through the identity provider, when CRM_SYNC_OIDC_ISSUER is set. */
    oidc?: OidcConfig;
    /** Whether the console's sign-in with the admin token is offered (always, without an identity provider). */
    localSignIn: boolean;
    sessionLifetimeMs: number;
  };
};

export type OidcConfig = {
  issuer: string;
  clientId: string;
  /** From CRM_SYNC_OIDC_CLIENT_SECRET; else read at start from the data directory's oidc-client-secret. */
  clientSecret?: string;
  /** Else this admin server's own address + /auth/callback. */
  redirectUrl?: string;
  scopes: string[];
  rolesClaim: string;
  /** Which of the roles claim's values give each role; all empty: the claim's values are role names. */
  groups: { admin: string[]; operator: string[]; viewer: string[] };
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

// Logs go to stderr, so stderr decides the readable format: `npm start > out.txt` on a terminal still logs readable lines.
export function loadConfig(env: NodeJS.ProcessEnv = process.env, logsGoToTerminal = Boolean(process.stderr.isTTY)): AppConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const variable = issue.path.join('.');
      const received = env[variable] === undefined ? 'it is not set' : `got ${JSON.stringify(mask(variable, env[variable]))}`;
      return `  ${variable}: expected ${describeExpectation(issue)}; ${received}`;
    });
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const values = parsed.data;
  if (values.DATABASE_URL && !values.CRM_SYNC_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  CRM_SYNC_SECRET_KEY: expected 32 bytes, base64-encoded, whenever DATABASE_URL is set ' +
        '(the key that encrypts connection secrets must live outside the database); it is not set',
    );
  }
  if (Boolean(values.CRM_SYNC_ADMIN_TLS_CERT) !== Boolean(values.CRM_SYNC_ADMIN_TLS_KEY)) {
    const [given, missing] = values.CRM_SYNC_ADMIN_TLS_CERT ? ['CRM_SYNC_ADMIN_TLS_CERT', 'CRM_SYNC_ADMIN_TLS_KEY'] : ['CRM_SYNC_ADMIN_TLS_KEY', 'CRM_SYNC_ADMIN_TLS_CERT'];
    throw new ConfigError(
      `Invalid configuration:\n  ${missing}: expected a PEM file whenever ${given} is set ` +
        '(the admin server needs both the certificate and its private key to speak HTTPS); it is not set',
    );
  }
  const oidc = oidcConfig(values);
  if (values.CRM_SYNC_ADMIN_LOCAL_SIGN_IN === 'off' && !oidc) {
    throw new ConfigError(
      'Invalid configuration:\n  CRM_SYNC_ADMIN_LOCAL_SIGN_IN: "off" needs CRM_SYNC_OIDC_ISSUER (without an identity provider the admin token is the only way into the console); CRM_SYNC_OIDC_ISSUER is not set',
    );
  }
  const adminTls = values.CRM_SYNC_ADMIN_TLS_CERT && values.CRM_SYNC_ADMIN_TLS_KEY ? { certFile: path.resolve(values.CRM_SYNC_ADMIN_TLS_CERT), keyFile: path.resolve(values.CRM_SYNC_ADMIN_TLS_KEY) } : undefined;
  return {
    dataDir: path.resolve(values.CRM_SYNC_DATA_DIR),
    database: { url: values.DATABASE_URL, embeddedPort: values.CRM_SYNC_EMBEDDED_PG_PORT, poolMax: values.CRM_SYNC_DB_POOL_MAX ?? poolMaxFor(values.CRM_SYNC_MAX_CONCURRENT_ACTIVITIES) },
    secretKey: values.CRM_SYNC_SECRET_KEY ? Buffer.from(values.CRM_SYNC_SECRET_KEY, 'base64') : undefined,
    temporal: {
      address: values.TEMPORAL_ADDRESS,
      namespace: values.TEMPORAL_NAMESPACE,
      cliPath: values.TEMPORAL_CLI_PATH,
      devServerPort: values.CRM_SYNC_TEMPORAL_PORT,
      devServerUiPort: values.CRM_SYNC_TEMPORAL_UI_PORT,
      taskQueue: values.CRM_SYNC_TASK_QUEUE,
    },
    heartbeatEvery: values.CRM_SYNC_HEARTBEAT_EVERY,
    worker: { maxConcurrentActivities: values.CRM_SYNC_MAX_CONCURRENT_ACTIVITIES, maxConcurrentWorkflowTasks: values.CRM_SYNC_MAX_CONCURRENT_WORKFLOW_TASKS },
    shutdownGraceMs: graceMs(values.CRM_SYNC_SHUTDOWN_GRACE),
    // 'auto': on the embedded defaults (no external database or cluster), `npm start` is the demo.
    demo: values.CRM_SYNC_DEMO === 'on' || (values.CRM_SYNC_DEMO === 'auto' && !values.DATABASE_URL && !values.TEMPORAL_ADDRESS),
    demoCrms: values.CRM_SYNC_DEMO_CRMS,
    log: { level: values.LOG_LEVEL, format: values.LOG_FORMAT ?? (logsGoToTerminal ? 'pretty' : 'json') },
    admin: {
      host: values.CRM_SYNC_ADMIN_HOST,
      port: values.CRM_SYNC_ADMIN_PORT,
      token: values.CRM_SYNC_ADMIN_TOKEN,
      ...(adminTls && { tls: adminTls }),
      ...(oidc && { oidc }),
      localSignIn: values.CRM_SYNC_ADMIN_LOCAL_SIGN_IN === 'on',
      sessionLifetimeMs: durationMs(values.CRM_SYNC_ADMIN_SESSION_LIFETIME),
    },
  };
}

const graceMs = (value: string) => (value.endsWith('ms') ? Number(value.slice(0, -2)) : durationMs(value));
const durationMs = (value: string) => Number(value.slice(0, -1)) * { s: 1000, m: 60_000, h: 3600_000 }[value.slice(-1) as 's' | 'm' | 'h'];

/** The identity provider's settings, checked together: each problem names its variable. */
function oidcConfig(values: z.infer<typeof environmentSchema>): OidcConfig | undefined {
  const problem = (variable: string, text: string) => new ConfigError(`Invalid configuration:\n  ${variable}: ${text}`);
  if (!values.CRM_SYNC_OIDC_ISSUER) {
    const stray = (['CRM_SYNC_OIDC_CLIENT_ID', 'CRM_SYNC_OIDC_CLIENT_SECRET', 'CRM_SYNC_OIDC_REDIRECT_URL'] as const).find((variable) => values[variable]);
    if (stray) throw problem('CRM_SYNC_OIDC_ISSUER', `expected the identity provider's issuer URL whenever ${stray} is set; it is not set`);
    return undefined;
  }
  const issuer = new URL(values.CRM_SYNC_OIDC_ISSUER);
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopback(issuer.hostname))) {
    throw problem('CRM_SYNC_OIDC_ISSUER', `expected an https:// URL (plain http only for a provider on this machine); got ${JSON.stringify(values.CRM_SYNC_OIDC_ISSUER)}`);
  }
  if (!values.CRM_SYNC_OIDC_CLIENT_ID) throw problem('CRM_SYNC_OIDC_CLIENT_ID', 'expected the client id this console is registered under at the identity provider whenever CRM_SYNC_OIDC_ISSUER is set; it is not set');
  const scopes = values.CRM_SYNC_OIDC_SCOPES.split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) throw problem('CRM_SYNC_OIDC_SCOPES', `expected a list of scopes that includes openid; got ${JSON.stringify(values.CRM_SYNC_OIDC_SCOPES)}`);
  return {
    issuer: values.CRM_SYNC_OIDC_ISSUER,
    clientId: values.CRM_SYNC_OIDC_CLIENT_ID,
    ...(values.CRM_SYNC_OIDC_CLIENT_SECRET && { clientSecret: values.CRM_SYNC_OIDC_CLIENT_SECRET }),
    ...(values.CRM_SYNC_OIDC_REDIRECT_URL && { redirectUrl: values.CRM_SYNC_OIDC_REDIRECT_URL }),
    scopes,
    rolesClaim: values.CRM_SYNC_OIDC_ROLES_CLAIM,
    groups: { admin: values.CRM_SYNC_OIDC_ADMIN_GROUPS, operator: values.CRM_SYNC_OIDC_OPERATOR_GROUPS, viewer: values.CRM_SYNC_OIDC_VIEWER_GROUPS },
  };
}

function describeExpectation(issue: z.core.$ZodIssue): string {
  if (!PORT_VARIABLES.has(issue.path.join('.')) && issue.code !== 'invalid_value') return issue.message;
  if (issue.code === 'invalid_value') return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'too_small' || issue.code === 'too_big') return 'a TCP port, a whole number from 1 to 65535';
  if (issue.code === 'invalid_type' && issue.expected === 'number') return 'a TCP port, a whole number from 1 to 65535';
  return issue.message;
}

const secretVariables = new Set(['CRM_SYNC_SECRET_KEY', 'DATABASE_URL', 'TEMPORAL_API_KEY', 'CRM_SYNC_ADMIN_TOKEN', 'CRM_SYNC_OIDC_CLIENT_SECRET']);

/** Never echo a secret back, even a malformed one. */
function mask(variable: string, value: string | undefined): string | undefined {
  return secretVariables.has(variable) ? '<redacted>' : value;
}

/**
 * The pool a process gets when CRM_SYNC_DB_POOL_MAX is not set: a page activity holds a connection for
 * its whole batch (the entity lock), so a worker with more slots than connections would leave activities
 * waiting for one (and failing after 30 s). Two spare for the schedules' bookkeeping; never under 10.
 */
export function poolMaxFor(activitySlots: number): number {
  return Math.max(10, activitySlots + 2);
}
