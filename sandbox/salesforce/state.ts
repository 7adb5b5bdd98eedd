// Everything one sandbox instance holds; handlers reach it through their request context.
import { createAuthLedger } from '../auth-ledger.ts';
import { createCallCounter } from './calls.ts';
import { createFaults } from './faults.ts';
import { createApiUsage } from './limits.ts';
import { createSessions } from './sessions.ts';
import { createStore } from './store.ts';
import { createCursors } from './query-cursors.ts';
import { createJobs } from './bulk2-jobs.ts';
import { createTokenRefusal } from './token-refusal.ts';
import { createRefreshTokens } from './refresh-tokens.ts';
import { applyChanges, createDriver } from './change-driver.ts';
import { createChangeTimer } from './change-timer.ts';
import { createDeployments, type CustomMetadata } from './deployments.ts';
import { createOrgSchema } from './org-schema.ts';
import type { MultiCurrency } from './currencies.ts';
import { seedIntegrationUser } from './permissions.ts';
import { seedStandardPricebook } from './catalogue.ts';
import { createQueryCost, type QueryCostSettings } from './query-cost.ts';
import { createRowLocks, type RowLockSettings } from './row-locks.ts';
import { createOrganization } from './organization.ts';

export type SandboxConfig = {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  sessionTtlSeconds: number;
  dailyApiLimit: number;
  now: () => Date;
  /** The change driver's seed, its rate (0: off) and the product ids its draft requests name. */
  seed: number;
  changesPerSecond: number;
  productIds: readonly string[];
  /** 'missing': an org before `crm-sync setup` (no custom objects or fields until the Tooling API makes them). */
  customMetadata?: CustomMetadata;
  /** A multi-currency org (currencies.ts): its currencies and its integration user's. Default: single-currency. */
  multiCurrency?: Required<MultiCurrency>;
  /** Refresh token rotation (refresh-tokens.ts): each refresh_token grant hands out a new token. Default off. */
  rotateRefreshTokens?: boolean;
  /** A hostname answered as login.salesforce.com, not the org's My Domain (oauth.ts). */
  genericLoginHost?: string;
  /** The org's My Domain host (where the sandbox listens): the instance_url of a token asked for on the generic host. */
  myDomainHost?: string;
  /** What queries cost in simulated time, and when they time out (query-cost.ts). */
  queryCost?: Partial<QueryCostSettings>;
  /** Row locks, when asked (row-locks.ts): UNABLE_TO_LOCK_ROW for a share of child rows, or real contention. Default off. */
  rowLocks?: Partial<RowLockSettings>;
  /** The org's default currency, Organization.DefaultCurrencyIsoCode (organization.ts). Default: a multi-currency org's corporate currency, else USD. */
  defaultCurrencyIsoCode?: string;
};

export function createState(config: SandboxConfig) {
  const store = createStore();
  const driver = createDriver(config.seed, config.productIds);
  const sessions = createSessions({ ttlSeconds: config.sessionTtlSeconds, now: config.now });
  const schema = createOrgSchema(config.customMetadata, config.multiCurrency);
  seedIntegrationUser(store);
  seedStandardPricebook(store);
  return {
    config,
    store,
    driver,
    // Started at rate 0: the sandbox sets the configured rate once it listens (after the journal's replay).
    changeTimer: createChangeTimer((count) => applyChanges({ store, now: config.now, driver }, count), 0),
    sessions,
    refreshTokens: createRefreshTokens({ initial: config.refreshToken, rotate: config.rotateRefreshTokens ?? false, revokeSessions: (tokens) => sessions.revoke(tokens) }),
    usage: createApiUsage({ dailyApiLimit: config.dailyApiLimit, now: config.now }),
    calls: createCallCounter(),
    auth: createAuthLedger(),
    faults: createFaults(),
    cursors: createCursors({ now: config.now }),
    jobs: createJobs(),
    tokenRefusal: createTokenRefusal(),
    /** The org's objects and fields (the Tooling API adds to them); `deployments` is that Tooling API. */
    schema,
    deployments: createDeployments(schema),
    queryCost: createQueryCost(config.queryCost),
    rowLocks: createRowLocks(config.rowLocks),
    organization: createOrganization(config.defaultCurrencyIsoCode ?? config.multiCurrency?.corporate),
  };
}

export type SandboxState = ReturnType<typeof createState>;

/**
 * Back to an empty org: no records, calls, auth ledger, faults, sessions, cursors, jobs (nor paused processing) or
 * token refusal; the refresh token back to the configured one (rotation as configured); the limit and the change driver's rate as configured, its PRNG back at the seed's
 * first draw; every field's uniqueness as the schema defines it.
 */
export function resetState(state: SandboxState) {
  state.store.clear();
  state.sessions.clear();
  state.usage.reset();
  state.calls.reset();
  state.auth.reset();
  state.faults.clear();
  state.cursors.clear();
  state.jobs.clear();
  state.tokenRefusal.clear();
  state.refreshTokens.reset();
  state.driver.restart();
  state.changeTimer.setRate(state.config.changesPerSecond);
  state.schema.reset();
  seedIntegrationUser(state.store);
  seedStandardPricebook(state.store);
  state.queryCost.reset();
  state.rowLocks.reset();
}
