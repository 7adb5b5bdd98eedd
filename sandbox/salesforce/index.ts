// A local Salesforce that jsforce 3 runs against unmodified: OAuth token endpoint, sObject REST,
// sObject Collections, SOQL queries with cursors, Bulk API 2.0 ingest, limits, plus /_sandbox test
// controls. One port serves both the login URL and the instance URL.
import { DEFAULT_PRODUCT_IDS } from './change-driver.ts';
import { MAX_CHANGES_PER_SECOND as MAX_RATE } from './change-timer.ts';
import { attachJournal } from './journal.ts';
import { listen } from './server.ts';
import { createState } from './state.ts';
import { multiCurrencySettings, type MultiCurrency } from './currencies.ts';
import { rowLockSettings } from './row-locks.ts';
import { queryCostSettings, type QueryCostSettings } from './query-cost.ts';

export { SALESFORCE_SANDBOX_SCHEMA } from './schema.ts';
export type { SandboxField, SandboxObject, FieldType } from './schema.ts';

export type SalesforceSandboxOptions = {
  host?: string; // default '127.0.0.1'
  port?: number; // default 0 (a free port)
  clientId?: string; // default 'sf-sandbox-client'
  clientSecret?: string; // default 'sf-sandbox-secret'
  refreshToken?: string; // default 'sf-sandbox-refresh-token' (accepted by the refresh_token grant)
  sessionTtlSeconds?: number; // default 7200; after it a session answers 401 INVALID_SESSION_ID
  dailyApiLimit?: number; // default 100000; beyond it 403 REQUEST_LIMIT_EXCEEDED
  now?: () => Date;
  /**
   * A file that keeps the records across restarts (see README "Persistence"): replayed at start when
   * it exists, then every write is appended before it is answered. Default: records in memory only.
   */
  journalPath?: string;
  /** The change driver (README "Change driver"): its PRNG seed, default 1. */
  seed?: number;
  /** Seller changes a second on a timer; default 0 (off). POST /_sandbox/changes/rate changes it while running. */
  changesPerSecond?: number;
  /** Product ids a private-offer draft request names; default prod-000001 .. prod-000008. */
  productIds?: readonly string[];
  /** 'missing': an org before `crm-sync setup`: describe shows none of the project's custom objects and fields until the Tooling API creates them. Default 'deployed'. */
  customMetadata?: 'deployed' | 'missing';
  /**
   * A multi-currency org (README "Multi-currency"): `{corporate: 'USD', active: ['USD', 'EUR'],
   * userCurrency: 'USD'}` gives Account, Contact, Opportunity and every custom object CurrencyIsoCode, a
   * restricted picklist of the active currencies that a create leaving it out fills with userCurrency
   * (default: the corporate one). Default: single-currency (no CurrencyIsoCode anywhere).
   */
  multiCurrency?: MultiCurrency;
  /**
   * The org's default currency, Organization.DefaultCurrencyIsoCode (README "Org default currency"):
   * what a single-currency org keeps every amount in. Default: a multi-currency org's corporate
   * currency, else USD. POST /_sandbox/organization changes it while running.
   */
  defaultCurrencyIsoCode?: string;
  /**
   * Refresh token rotation (README "Rotating refresh tokens"): each refresh_token grant answers a new
   * `refresh_token` and invalidates the one used; reusing a rotated-out one revokes the family. Default
   * off. POST /_sandbox/oauth/refresh-tokens changes it while running.
   */
  rotateRefreshTokens?: boolean;
  /**
   * A hostname answered as login.salesforce.com (README "Generic login host"), e.g. 'localhost' while the
   * sandbox listens on 127.0.0.1 (its My Domain): client credentials sent there are refused with
   * invalid_grant "request not supported on this domain". Default: none (every host is the My Domain).
   */
  genericLoginHost?: string;
  /**
   * Record ids count on after this number (default 0). Real orgs never share record ids; two sandboxes
   * started alike do: give a second org another range when a test must tell their ids apart.
   */
  idsAfter?: number;
  /**
   * What a query costs (README "Query cost"): simulated ms per 1,000 rows the optimizer scans (default
   * 0: free), the time after which a query answers QUERY_TIMEOUT (default 120,000), and the share of
   * the simulated time really waited (default 0). POST /_sandbox/query-cost changes it while running.
   */
  queryCost?: Partial<QueryCostSettings>;
  /**
   * Row locks (README "Row locks"): the share of child rows (0 to 1, default 0) that fail with
   * UNABLE_TO_LOCK_ROW naming their parent, drawn from `lockSeed` (default 1).
   */
  lockFailureRate?: number;
  lockSeed?: number;
  /**
   * Real contention (default off): a REST save holds its rows' parents `lockHoldMs` (default 50) and a
   * save touching one held by another fails those rows; Bulk API 2.0 jobs run in parallel internal
   * batches of `lockBatchSize` rows (default 10,000). POST /_sandbox/row-locks changes all of it while running.
   */
  lockContention?: boolean;
  lockHoldMs?: number;
  lockBatchSize?: number;
};

export type SalesforceSandbox = {
  loginUrl: string;
  instanceUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** With `genericLoginHost`: the login URL on it (the sandbox's "login.salesforce.com"). */
  genericLoginUrl?: string;
  stop(): Promise<void>;
};

/** The driver's options and the id range, checked before anything starts: a bad one names itself and what it expects. */
function driverOptions(options: SalesforceSandboxOptions) {
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new Error(`Salesforce sandbox: seed must be a whole number, not ${String(options.seed)}`);
  const changesPerSecond = options.changesPerSecond ?? 0;
  if (typeof changesPerSecond !== 'number' || !Number.isFinite(changesPerSecond) || changesPerSecond < 0 || changesPerSecond > MAX_RATE) {
    throw new Error(`Salesforce sandbox: changesPerSecond must be a number from 0 (off) to ${MAX_RATE}, not ${String(options.changesPerSecond)}`);
  }
  const idsAfter = options.idsAfter ?? 0;
  if (!Number.isSafeInteger(idsAfter) || idsAfter < 0) throw new Error(`Salesforce sandbox: idsAfter must be a whole number of at least 0, not ${String(options.idsAfter)}`);
  const productIds = options.productIds ?? DEFAULT_PRODUCT_IDS;
  const badProduct = Array.isArray(productIds) ? productIds.find((id) => typeof id !== 'string' || id.trim() === '' || id.length > 255) : undefined;
  if (!Array.isArray(productIds) || badProduct !== undefined) {
    throw new Error(`Salesforce sandbox: productIds must be a list of product ids (text of 1 to 255 characters); ${JSON.stringify(badProduct ?? productIds)} is not one`);
  }
  return { seed, changesPerSecond, productIds: [...productIds], idsAfter };
}

/** The row-lock options, checked before anything starts. */
function lockOptions(options: SalesforceSandboxOptions) {
  const { lockFailureRate: failureRate, lockSeed: seed, lockContention: contention, lockHoldMs: holdMs, lockBatchSize: batchSize } = options;
  try {
    return rowLockSettings({ failureRate, seed, contention, holdMs, batchSize });
  } catch (error) {
    throw new Error(`Salesforce sandbox: ${(error as Error).message}`);
  }
}

export async function startSalesforceSandbox(options: SalesforceSandboxOptions = {}): Promise<SalesforceSandbox> {
  const config = {
    ...driverOptions(options),
    clientId: options.clientId ?? 'sf-sandbox-client',
    clientSecret: options.clientSecret ?? 'sf-sandbox-secret',
    refreshToken: options.refreshToken ?? 'sf-sandbox-refresh-token',
    sessionTtlSeconds: options.sessionTtlSeconds ?? 7200,
    dailyApiLimit: options.dailyApiLimit ?? 100_000,
    now: options.now ?? (() => new Date()),
    customMetadata: options.customMetadata,
    multiCurrency: multiCurrencySettings(options.multiCurrency),
    defaultCurrencyIsoCode: options.defaultCurrencyIsoCode,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
    genericLoginHost: options.genericLoginHost,
    myDomainHost: options.host ?? '127.0.0.1',
    queryCost: queryCostSettings({ ...(options.queryCost ?? {}) }, 'Salesforce sandbox queryCost'),
    rowLocks: lockOptions(options),
  };
  const state = createState(config);
  state.store.continueIdsAfter(config.idsAfter);
  const journal = options.journalPath === undefined ? undefined : attachJournal(state.store, options.journalPath);
  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(state, options.host ?? '127.0.0.1', options.port ?? 0);
  } catch (error) {
    journal?.close();
    throw error;
  }
  const { server, origin } = listening;
  state.changeTimer.setRate(config.changesPerSecond);
  return {
    loginUrl: origin,
    instanceUrl: origin,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    refreshToken: config.refreshToken,
    ...(config.genericLoginHost && { genericLoginUrl: `http://${config.genericLoginHost}:${new URL(origin).port}` }),
    async stop() {
      state.changeTimer.stop();
      state.jobs.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      journal?.close();
    },
  };
}
