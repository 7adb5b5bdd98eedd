// Everything one running sandbox holds: its data, tokens, limits, counters, auth ledger and faults.
import { seedUsers } from './users.ts';
import type { CatalogueSettings } from './catalogue.ts';
import { baseCurrencySetting, createCurrencies } from './currencies.ts';
import { createAuthLedger } from '../auth-ledger.ts';
import { createCallCounter } from './calls.ts';
import { createFaults } from './faults.ts';
import { createPlugins } from './plugins.ts';
import { createKeyJobs } from './key-jobs.ts';
import { createLimits, type LimitSettings } from './limits.ts';
import { createPrivileges } from './privileges.ts';
import { createStore } from './store.ts';
import type { ServerTime } from './server-time.ts';
import { createTokens, type Credentials } from './tokens.ts';

/**
 * `batchLineEnding`: how $batch answers end their lines (the multipart standard's CRLF, or LF).
 * `serverTime`: the clock requests' server time runs on (server-time.ts; real time by default).
 */
export type SandboxConfig = { now: () => Date; credentials: Credentials; limits: LimitSettings; batchLineEnding?: '\n' | '\r\n'; keyActivationMs?: number; keyClock?: () => number; missingPrivileges?: string[]; serverTime?: ServerTime; baseCurrency?: string; currencies?: string[]; productsCreatedActive?: boolean };

/** Small but not zero: a key made by setup is not usable in the same breath, as on the live service. */
export const DEFAULT_KEY_ACTIVATION_MS = 300;

export function createState(config: SandboxConfig) {
  const where = { origin: '' };
  const state = {
    config,
    /** `http://host:port` once listening: the org URL without its trailing slash (the token's resource). */
    get origin(): string {
      return where.origin;
    },
    set origin(value: string) {
      where.origin = value;
    },
    store: createStore(),
    tokens: createTokens(config.credentials, config.now, () => where.origin),
    limits: createLimits(config.limits, config.now),
    calls: createCallCounter(),
    auth: createAuthLedger(),
    faults: createFaults(),
    /** How long an alternate key's index job takes (key-jobs.ts). */
    keyJobs: createKeyJobs(config.keyActivationMs ?? DEFAULT_KEY_ACTIVATION_MS, config.keyClock),
    /** The privileges the application user's role lacks (privileges.ts). */
    privileges: createPrivileges(config.missingPrivileges),
    /** Plug-ins refusing Updates (plugins.ts; tests only). */
    plugins: createPlugins(),
    /** The organization's base currency and its currency rows (currencies.ts). */
    currencies: createCurrencies(baseCurrencySetting(config.baseCurrency), config.currencies),
    /** The sales catalogue's organisation settings (catalogue.ts). */
    catalogue: { productsCreatedActive: config.productsCreatedActive === true } as CatalogueSettings,
  };
  seedUsers(state);
  return state;
}

export type SandboxState = ReturnType<typeof createState>;

/** Back to a fresh organisation: standard tables only, no rows, fresh budgets, no faults, counts or auth ledger. */
export function resetState(state: SandboxState) {
  state.store.clear();
  state.limits.reset(state.config.limits);
  state.calls.reset();
  state.auth.reset();
  state.faults.clear();
  state.plugins.clear();
  state.keyJobs.activationMs = state.config.keyActivationMs ?? DEFAULT_KEY_ACTIVATION_MS;
  state.privileges.setMissing(state.config.missingPrivileges ?? []);
  state.currencies = createCurrencies(baseCurrencySetting(state.config.baseCurrency), state.config.currencies);
  seedUsers(state);
}
