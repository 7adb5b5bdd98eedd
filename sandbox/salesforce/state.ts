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
import { applyChanges, createDriver } from './change-driver.ts';
import { createChangeTimer } from './change-timer.ts';
import { createDeployments, type CustomMetadata } from './deployments.ts';

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
};

export function createState(config: SandboxConfig) {
  const store = createStore();
  const driver = createDriver(config.seed, config.productIds);
  return {
    config,
    store,
    driver,
    // Started at rate 0: the sandbox sets the configured rate once it listens (after the journal's replay).
    changeTimer: createChangeTimer((count) => applyChanges({ store, now: config.now, driver }, count), 0),
    sessions: createSessions({ ttlSeconds: config.sessionTtlSeconds, now: config.now }),
    usage: createApiUsage({ dailyApiLimit: config.dailyApiLimit, now: config.now }),
    calls: createCallCounter(),
    auth: createAuthLedger(),
    faults: createFaults(),
    cursors: createCursors({ now: config.now }),
    jobs: createJobs(),
    tokenRefusal: createTokenRefusal(),
    deployments: createDeployments(config.customMetadata),
  };
}

export type SandboxState = ReturnType<typeof createState>;

/**
 * Back to an empty org: no records, calls, auth ledger, faults, sessions, cursors, jobs (nor paused processing) or
 * token refusal; the limit and the change driver's rate as configured, its PRNG back at the seed's
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
  state.driver.restart();
  state.changeTimer.setRate(state.config.changesPerSecond);
  state.deployments.reset();
}
