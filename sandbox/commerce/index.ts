// The commerce sandbox: a local stand-in for the Marketplace Commerce Service on the wire (an auth
// host and an API host), written from the contract (../../docs/commerce-api-spec.md) and
// docs/commerce-api-assumptions.md. Used by the tests and the demo (`crm-sync sandbox`).
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthServer } from './auth-server.ts';
import { startChangeTimer } from './change-driver.ts';
import { DEFAULT_BASE_TIME } from './generator.ts';
import { openCommerceJournal } from './journal.ts';
import { createApiServer } from './server.ts';
import { createState } from './state.ts';

export type CommerceSandboxOptions = {
  host?: string; // default '127.0.0.1'
  apiPort?: number; // default 0 (free port)
  authPort?: number; // default 0
  seed?: number; // default 1
  entitlements?: number; // default 200
  organizationId?: string; // default 'org-1'
  clientId?: string; // default 'sandbox-client'
  clientSecret?: string; // default 'sandbox-secret'
  tokenTtlSeconds?: number; // default 3600
  totalCountCap?: number; // default 10000
  changesPerSecond?: number; // default 0
  unknownEventVersionRate?: number; // default 0
  /** false: a term's usage or commit change leaves its entitlement alone (README "Change driver"). Default true. */
  termsBumpEntitlement?: boolean;
  /** How long the partner reviews a submitted referral (A13; README "Co-sell"); 0: no review. Default 60. */
  partnerReviewSeconds?: number;
  now?: () => Date; // default () => new Date()
  /** The time the generated data is made around (ISO 8601; default 2026-01-01T00:00:00.000Z): a test of what happened in the last days puts it near now. */
  baseTime?: string;
  /**
   * A file that keeps every change across restarts (see README "Persistence"): replayed over the
   * generated data at start when it exists, then every change is appended before it is answered.
   * Default: changes in memory only.
   */
  journalPath?: string;
  /**
   * A journal of data another version of the sandbox generated is renamed aside and a fresh one started
   * (the demo's data directory across an upgrade), instead of refused; `onJournalSetAside` is told where it went.
   */
  setAsideStaleJournal?: boolean;
  onJournalSetAside?: (renamedTo: string, why: string) => void;
};

export type CommerceSandbox = {
  apiUrl: string; // e.g. http://127.0.0.1:40123  (the {base_url}; paths start with /org)
  authUrl: string; // e.g. http://127.0.0.1:40124  (token at {authUrl}/oauth2/token)
  organizationId: string;
  clientId: string;
  clientSecret: string;
  stop(): Promise<void>;
};

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const urlOf = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

function reviewSeconds(value: number | undefined): number {
  if (value === undefined) return 60;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`partnerReviewSeconds must be a number of seconds, 0 or more (0: no partner review), got ${String(value)}`);
  return value;
}

export async function startCommerceSandbox(options: CommerceSandboxOptions = {}): Promise<CommerceSandbox> {
  const host = options.host ?? '127.0.0.1';
  const state = createState({
    seed: options.seed ?? 1,
    entitlements: options.entitlements ?? 200,
    organizationId: options.organizationId ?? 'org-1',
    clientId: options.clientId ?? 'sandbox-client',
    clientSecret: options.clientSecret ?? 'sandbox-secret',
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    totalCountCap: options.totalCountCap ?? 10_000,
    changesPerSecond: options.changesPerSecond ?? 0,
    unknownEventVersionRate: options.unknownEventVersionRate ?? 0,
    termsBumpEntitlement: options.termsBumpEntitlement ?? true,
    partnerReviewSeconds: reviewSeconds(options.partnerReviewSeconds),
    baseTime: options.baseTime ?? DEFAULT_BASE_TIME,
    now: options.now ?? (() => new Date()),
  });
  if (options.journalPath !== undefined) state.journal = openCommerceJournal(state, options.journalPath, { setAsideStale: options.setAsideStaleJournal, setAside: options.onJournalSetAside });
  const api = createApiServer(state);
  const auth = createAuthServer(state);
  try {
    state.apiUrl = urlOf(host, await listen(api, options.apiPort ?? 0, host));
    state.authUrl = urlOf(host, await listen(auth, options.authPort ?? 0, host));
  } catch (error) {
    await Promise.all([close(api), close(auth)]);
    state.journal?.close();
    throw error;
  }
  const stopChanges = startChangeTimer(state);
  let stopping: Promise<void> | undefined;
  return {
    apiUrl: state.apiUrl,
    authUrl: state.authUrl,
    organizationId: state.settings.organizationId,
    clientId: state.settings.clientId,
    clientSecret: state.settings.clientSecret,
    stop: () => {
      stopping ??= (async () => {
        stopChanges();
        await Promise.all([close(api), close(auth)]);
        state.journal?.close();
      })();
      return stopping;
    },
  };
}
