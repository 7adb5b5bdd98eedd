// Everything one sandbox instance holds; handlers reach it through their request context.
import { createCallCounter } from './calls.ts';
import { createFaults } from './faults.ts';
import { createApiUsage } from './limits.ts';
import { createSessions } from './sessions.ts';
import { createStore } from './store.ts';
import { createCursors } from './query-cursors.ts';
import { createJobs } from './bulk2-jobs.ts';
import { createTokenRefusal } from './token-refusal.ts';

export type SandboxConfig = {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  sessionTtlSeconds: number;
  dailyApiLimit: number;
  now: () => Date;
};

export function createState(config: SandboxConfig) {
  return {
    config,
    store: createStore(),
    sessions: createSessions({ ttlSeconds: config.sessionTtlSeconds, now: config.now }),
    usage: createApiUsage({ dailyApiLimit: config.dailyApiLimit, now: config.now }),
    calls: createCallCounter(),
    faults: createFaults(),
    cursors: createCursors({ now: config.now }),
    jobs: createJobs(),
    tokenRefusal: createTokenRefusal(),
  };
}

export type SandboxState = ReturnType<typeof createState>;

/**
 * Back to an empty org: no records, calls, faults, sessions, cursors, jobs (nor paused processing) or
 * token refusal; the limit as configured; every field's uniqueness as the schema defines it.
 */
export function resetState(state: SandboxState) {
  state.store.clear();
  state.sessions.clear();
  state.usage.reset();
  state.calls.reset();
  state.faults.clear();
  state.cursors.clear();
  state.jobs.clear();
  state.tokenRefusal.clear();
}
