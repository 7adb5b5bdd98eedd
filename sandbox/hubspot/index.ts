// A local HubSpot that @hubspot/api-client 14 runs against unmodified: CRM objects v3 (companies,
// contacts, deals, line items, custom objects such as marketplace_entitlement by objectTypeId or fully
// qualified name), the custom object schemas API, search, properties and property groups, deal
// pipelines, associations v4, the OAuth token endpoint, HubSpot's rate limits, and /_sandbox test controls.
import type { Owner } from './owners.ts';
import { attachJournal } from './journal.ts';
import { listen } from './server.ts';
import { createState } from './state.ts';
import { defaultCredentials } from './tokens.ts';

export type HubSpotSandboxOptions = {
  host?: string; // default '127.0.0.1'
  port?: number; // default 0 (a free port)
  /** A file that keeps the account's data across restarts (README "Persistence"). Default: memory only. */
  journalPath?: string;
  now?: () => Date;
  /** Seeds the credentials so a restarted sandbox hands out the same token and OAuth client. */
  seed?: number;
  dailyLimit?: number; // default 650,000 (a Professional account's private app)
  tenSecondlyLimit?: number; // default 190
  searchPerSecond?: number; // default 5
  /** false: an account without custom objects (no Enterprise subscription): none defined, and defining one is refused (403). */
  customObjects?: boolean;
  /** The account id (default 4242): custom objects' fully qualified names are p{portalId}_{name}. */
  portalId?: string;
  /**
   * true (default): the account starts with the custom object marketplace_entitlement defined (2-1234567),
   * as one where someone created it before; false: it has none until `crm-sync setup` (or anyone) creates it.
   */
  premadeCustomObjects?: boolean;
  /** Scopes the access tokens lack (sandbox/hubspot/scopes.ts), e.g. ['crm.schemas.custom.read']. */
  withheldScopes?: string[];
  /** The account's company currency (account details' `companyCurrency`, default USD); POST /_sandbox/account changes it. */
  companyCurrency?: string;
  /**
   * Record, pipeline and stage ids count on after this number (default 0). Real portals never share
   * ids; two sandboxes started alike do: give a second portal another range when a test must tell them apart.
   */
  idsAfter?: number;
  /** The portal's owners (GET /crm/v3/owners; the ids hubspot_owner_id takes). Default: three (sandbox/hubspot/owners.ts). */
  owners?: readonly Owner[];
  /**
   * A multi-currency account (issue #28): its currencies besides the company currency, e.g. ['EUR'].
   * Then deals have deal_currency_code, line items hs_line_item_currency_code and products hs_price_<code>
   * per currency. Default none: an account with one currency, without those properties.
   */
  additionalCurrencies?: string[];
};

export type HubSpotSandbox = {
  baseUrl: string;
  /** A private-app token: never expires. */
  accessToken: string;
  oauth: { clientId: string; clientSecret: string; refreshToken: string };
  controlUrl: string;
  stop(): Promise<void>;
};

function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new Error(`HubSpot sandbox: ${name} must be a whole number of at least ${min}, not ${String(value)}`);
  return value;
}

/** Credentials derived from a seed (stable across restarts), or random ones. */
function credentialsFor(seed: number | undefined) {
  if (seed === undefined) return defaultCredentials();
  if (!Number.isInteger(seed)) throw new Error(`HubSpot sandbox: seed must be a whole number, not ${String(seed)}`);
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const uuid = (salt: number) => `${hex(seed ^ salt)}-0000-4000-8000-${hex(seed + salt)}${hex(salt).slice(0, 4)}`;
  return { accessToken: `pat-na1-${uuid(1)}`, clientId: uuid(2), clientSecret: uuid(3), refreshToken: `na1-${hex(seed)}-${uuid(4)}` };
}

export async function startHubSpotSandbox(options: HubSpotSandboxOptions = {}): Promise<HubSpotSandbox> {
  const credentials = credentialsFor(options.seed);
  const state = createState({
    now: options.now ?? (() => new Date()),
    credentials,
    customObjects: options.customObjects,
    portalId: options.portalId,
    premadeCustomObjects: options.premadeCustomObjects,
    withheldScopes: options.withheldScopes,
    companyCurrency: options.companyCurrency,
    owners: options.owners,
    additionalCurrencies: options.additionalCurrencies,
    limits: {
      dailyLimit: whole('dailyLimit', options.dailyLimit, 650_000, 0),
      tenSecondlyLimit: whole('tenSecondlyLimit', options.tenSecondlyLimit, 190, 0),
      searchPerSecond: whole('searchPerSecond', options.searchPerSecond, 5, 0),
    },
  });
  state.store.continueIdsAfter(whole('idsAfter', options.idsAfter, 0, 0));
  const journal = options.journalPath === undefined ? undefined : attachJournal(state.store, options.journalPath);
  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(state, options.host ?? '127.0.0.1', options.port ?? 0);
  } catch (error) {
    journal?.close();
    throw error;
  }
  const { server, origin } = listening;
  return {
    baseUrl: origin,
    accessToken: credentials.accessToken,
    oauth: { clientId: credentials.clientId, clientSecret: credentials.clientSecret, refreshToken: credentials.refreshToken },
    controlUrl: `${origin}/_sandbox`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      journal?.close();
    },
  };
}
