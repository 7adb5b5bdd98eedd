// Everything one running sandbox holds: its data, tokens, limits, counters, auth ledger and faults.
import { createAuthLedger } from '../auth-ledger.ts';
import { createCallCounter } from './calls.ts';
import { createFaults } from './faults.ts';
import { createLimits, type LimitSettings } from './limits.ts';
import { createStore } from './store.ts';
import { createTokens, type Credentials } from './tokens.ts';
import { accountCurrencies, companyCurrencySetting } from './account-info.ts';
import type { Owner } from './owners.ts';

/**
 * `customObjects: false`: an account without custom objects (HubSpot sells them with Enterprise): it
 * lists no schemas and is refused a new one. `portalId` and `premadeCustomObjects`: store.ts.
 * `withheldScopes`: scopes its token lacks (scopes.ts), for a private app made without them.
 */
export type SandboxConfig = {
  now: () => Date;
  credentials: Credentials;
  limits: LimitSettings;
  customObjects?: boolean;
  portalId?: string;
  premadeCustomObjects?: boolean;
  withheldScopes?: string[];
  /** The account's company currency (account-info.ts), an ISO code; default USD. */
  companyCurrency?: string;
  /** The portal's owners (owners.ts; default DEFAULT_OWNERS). */
  owners?: readonly Owner[];
  /** A multi-currency account's currencies besides the company currency (issue #28; account-info.ts). */
  additionalCurrencies?: string[];
};

export function createState(config: SandboxConfig) {
  return {
    config,
    // An account without custom objects has none defined either.
    store: createStore({
      portalId: config.portalId,
      premadeCustomObjects: config.customObjects !== false && config.premadeCustomObjects !== false,
      owners: config.owners,
      currencies: accountCurrencies(config),
    }),
    /** Scopes the token lacks (changed by /_sandbox/scopes). */
    withheldScopes: new Set(config.withheldScopes ?? []),
    tokens: createTokens(config.credentials, config.now),
    limits: createLimits(config.limits, config.now),
    calls: createCallCounter(),
    auth: createAuthLedger(),
    faults: createFaults(),
    /** The account's settings the account-info API shows (account-info.ts). */
    account: { companyCurrency: companyCurrencySetting(config.companyCurrency) },
    /** Association limits an admin configured: `${fromType}>${toType}` -> most records of toType one record may have. */
    associationLimits: new Map<string, number>(),
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
  state.withheldScopes = new Set(state.config.withheldScopes ?? []);
  state.associationLimits.clear();
  state.account.companyCurrency = companyCurrencySetting(state.config.companyCurrency);
}
