// Everything one running sandbox holds: its data, tokens, limits, counters, auth ledger and faults.
import { createAuthLedger } from '../auth-ledger.ts';
import { createCallCounter } from './calls.ts';
import { createFaults } from './faults.ts';
import { createLimits, type LimitSettings } from './limits.ts';
import { createStore } from './store.ts';
import { createTokens, type Credentials } from './tokens.ts';

/** `customObjects: false`: an account without custom objects (HubSpot sells them with Enterprise). */
export type SandboxConfig = { now: () => Date; credentials: Credentials; limits: LimitSettings; customObjects?: boolean };

export function createState(config: SandboxConfig) {
  return {
    config,
    store: createStore(),
    tokens: createTokens(config.credentials, config.now),
    limits: createLimits(config.limits, config.now),
    calls: createCallCounter(),
    auth: createAuthLedger(),
    faults: createFaults(),
  };
}

export type SandboxState = ReturnType<typeof createState>;

/** Back to a fresh account: no records, default properties and pipeline, fresh budgets, no faults, an empty auth ledger. */
export function resetState(state: SandboxState) {
  state.store.clear();
  state.tokens.clear();
  state.limits.reset(state.config.limits);
  state.calls.reset();
  state.auth.reset();
  state.faults.clear();
}
