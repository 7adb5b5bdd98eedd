// What `crm-sync start` and `crm-sync worker` run beside the worker: the metrics the activities count
// and the admin server that serves them (with the Temporal SDK's) and the web console, its token resolved and its address
// told. The token itself goes only to a person at a terminal, never into the logs. Beyond loopback without
// TLS it still starts (a private network may be trusted) but warns: the token and the session cookie would
// cross the network in clear.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import type pg from 'pg';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { createSyncMetrics, type SyncMetrics } from '../metrics/sync-metrics.ts';
import { isLoopback } from './loopback.ts';
import { checkRedirectSetting, resolveOidcClientSecret, rolesFromNamesWarning } from './oidc.ts';
import { DEFAULT_SESSION_LIFETIME_MS } from './console/sessions.ts';
import { startAdminServer, type AdminServer } from './server.ts';
import { readAdminTls } from './tls.ts';
import { resolveAdminToken } from './token.ts';
import type { ConsoleDeps } from './console/routes.ts';
import type { ReadinessProbe } from './health.ts';

/** A free loopback port for the Temporal SDK's metrics exporter (the admin server reads it from there). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Where the admin token is kept, for messages (never the token itself). */
export function adminTokenWhere(config: AppConfig): string {
  return config.admin.token ? 'CRM_SYNC_ADMIN_TOKEN' : path.join(config.dataDir, 'admin-token');
}

/**
 * The admin server's settings checked, changing nothing: the admin token (the variable's, or the one
 * saved in the data directory), the TLS certificate and key, the OIDC redirect address and client
 * secret. `crm-sync start` and `worker` call it before they start anything, so a refused setting exits 2
 * at once, not after PostgreSQL and Temporal have come up. Throws a ConfigError naming the setting.
 */
export function checkAdminSettings(config: AppConfig): { tls?: { cert: Buffer; key: Buffer }; oidc?: OidcSettings } {
  // A token generated on first start is long enough by construction; only one given, or saved, is checked.
  const tokenFile = path.join(config.dataDir, 'admin-token');
  if (config.admin.token || (existsSync(tokenFile) && readFileSync(tokenFile, 'utf8').trim())) resolveAdminToken({ fromEnvironment: config.admin.token, dataDir: config.dataDir });
  const tls = config.admin.tls ? readAdminTls(config.admin.tls) : undefined;
  const oidcConfig = config.admin.oidc;
  if (oidcConfig) checkRedirectSetting(oidcConfig.redirectUrl, config.admin.host);
  const oidc = oidcConfig && { ...oidcConfig, clientSecret: resolveOidcClientSecret(oidcConfig.clientSecret, config.dataDir) };
  return { tls, oidc };
}

type OidcSettings = NonNullable<AppConfig['admin']['oidc']> & { clientSecret: string };

/** `readiness`: what GET /readyz checks (`crm-sync worker` gives it; without it /readyz answers 503, /healthz always answers). */
export async function startAdmin(config: AppConfig, logger: Logger, pool: pg.Pool, temporalMetricsPort?: number, consoleDeps?: ConsoleDeps, readiness?: ReadinessProbe): Promise<{ metrics: SyncMetrics; server: AdminServer }> {
  const { tls, oidc } = checkAdminSettings(config);
  mkdirSync(config.dataDir, { recursive: true });
  const token = resolveAdminToken({ fromEnvironment: config.admin.token, dataDir: config.dataDir });
  const oidcConfig = config.admin.oidc;
  const metrics = createSyncMetrics({ pool, observeApi: true });
  const server = await startAdminServer({
    host: config.admin.host,
    port: config.admin.port,
    token: token.value,
    metrics,
    temporalMetricsUrl: temporalMetricsPort ? `http://127.0.0.1:${temporalMetricsPort}/metrics` : undefined,
    console: consoleDeps,
    // In the project's database: every replica serves every session, and a deploy signs nobody out.
    sessionStorage: { postgres: pool },
    tls,
    oidc,
    localSignIn: config.admin.localSignIn,
    sessionLifetimeMs: config.admin.sessionLifetimeMs,
    readiness,
  });
  if (!tls && !isLoopback(config.admin.host)) {
    logger.warn(
      { adminHost: config.admin.host },
      `The admin server listens on ${config.admin.host}, beyond this machine, without TLS: the admin token and console sessions cross the network in clear. ` +
        'Set CRM_SYNC_ADMIN_TLS_CERT and CRM_SYNC_ADMIN_TLS_KEY (PEM files), or put it behind an HTTPS proxy, or set CRM_SYNC_ADMIN_HOST=127.0.0.1',
    );
  }
  if (server.oidcRedirectUrl) {
    const warning = rolesFromNamesWarning(oidcConfig!);
    if (warning) logger.warn({ rolesClaim: oidcConfig!.rolesClaim }, warning);
    // The secret is never logged: only where people sign in and the address to register at the provider.
    logger.info(
      { issuer: oidcConfig!.issuer, redirectUrl: server.oidcRedirectUrl, localSignIn: config.admin.localSignIn },
      `Console sign-in through ${oidcConfig!.issuer} (register ${server.oidcRedirectUrl} as a redirect URI of client ${oidcConfig!.clientId})${config.admin.localSignIn ? '; local sign-in with the admin token stays on' : ''}`,
    );
  }
  const lifetimeMs = config.admin.sessionLifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS;
  logger.info(
    { sessionLifetimeMs: lifetimeMs },
    `Console sessions last ${duration(lifetimeMs)} (CRM_SYNC_ADMIN_SESSION_LIFETIME)${server.oidcRedirectUrl ? ', however short the identity provider makes its ID tokens' : ''}`,
  );
  const where = token.source === 'environment' ? 'CRM_SYNC_ADMIN_TOKEN' : token.file;
  logger.info({ console: `${server.url}/`, metrics: `${server.url}/metrics`, token: where }, `Console: ${server.url}/ and metrics: ${server.url}/metrics (${config.admin.localSignIn ? 'sign in with the admin token' : 'scripts use the admin token'} in ${where})`);
  // The token itself only to a person at a terminal (never into a log file).
  if (process.stdout.isTTY) process.stdout.write(`Console: ${server.url}/  (admin token: ${token.value})\nMetrics: ${server.url}/metrics (Authorization: Bearer <admin token>)\n`);
  const stop = server.stop;
  return {
    metrics,
    server: {
      ...server,
      stop: async () => {
        metrics.stop();
        await stop();
      },
    },
  };
}

/** 12h, 30m, 90s: as the setting is written. */
function duration(ms: number): string {
  if (ms % 3600_000 === 0) return `${ms / 3600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}
