// A local Dynamics 365 / Dataverse organisation that dynamics-web-api 2.5 runs against unmodified:
// the Microsoft identity platform v2.0 token endpoint (client credentials), the Web API under
// /api/data/v9.2/ (metadata-driven tables: account, contact, opportunity and whatever the metadata
// API creates; CRUD, upsert by alternate key, binds, queries with paging, $batch with change sets),
// service protection limits, and /_sandbox test controls. See README.md.
import { randomUUID } from 'node:crypto';
import { attachJournal } from './journal.ts';
import { DEFAULT_OPERATION_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './limits.ts';
import { listen } from './server.ts';
import type { ServerTime } from './server-time.ts';
import { createState } from './state.ts';
import type { Credentials } from './tokens.ts';

export { DEFAULT_OPERATION_MS } from './limits.ts';
export type { ServerTime } from './server-time.ts';
export type DynamicsSandboxOptions = {
  host?: string; port?: number;               // default 127.0.0.1, 0 = free port
  journalPath?: string;                        // durable data (like the HubSpot sandbox); default memory only
  seed?: number;                               // stable tenant/client id/secret across restarts
  now?: () => Date;
  requestsPer300s?: number;                    // service protection, default 6000 (per user = per client id)
  executionMsPer300s?: number;                 // default 1_200_000
  /** How $batch answers end their lines: LF (default) or the multipart standard's CRLF. */
  batchLineEnding?: '\n' | '\r\n';
  concurrency?: number;                        // default 52 concurrent requests per user
  /** How long an alternate key's index job takes before the key is Active (or Failed); default 300 ms (key-jobs.ts). */
  keyActivationMs?: number;
  /** The clock (ms) that build time is counted on; real time by default. For tests that must see each status on any machine. */
  keyClock?: () => number;
  /** Privileges the application user's security role lacks, e.g. ['prvWriteccs_marketplaceentitlement'] (privileges.ts). */
  missingPrivileges?: string[];
  /** The organization's base currency (currencies.ts), an ISO code; default USD. POST /_sandbox/currencies `{base}` changes it. */
  baseCurrency?: string;
  /**
   * Issue #28: Organization.CreateProductsWithoutParentInActiveState. false (default, a fresh
   * organisation): a new product is Draft until published; true: a product without a family starts Active.
   */
  productsCreatedActive?: boolean;
  /** The organisation's transaction currencies besides the base currency (ISO codes; issue #28), e.g. ['EUR']. Default none. */
  currencies?: string[];
  /** Server time each operation costs (a $batch's run one after another); default DEFAULT_OPERATION_MS (limits.ts), 0 for none. */
  operationMs?: number;
  /** How long one request may run before it is stopped; default 120,000 (Dataverse's 2 minutes). */
  requestTimeoutMs?: number;
  /** The clock server time runs on (server-time.ts); real time by default. For tests whose counts must not depend on the machine's speed. */
  serverTime?: ServerTime;
};
export type DynamicsSandbox = {
  orgUrl: string;        // e.g. http://127.0.0.1:PORT/  (the "serverUrl"; Web API at `${orgUrl}api/data/v9.2/`)
  authority: string;     // e.g. http://127.0.0.1:PORT  (token URL = `${authority}/${tenantId}/oauth2/v2.0/token`)
  tokenUrl: string;
  tenantId: string; clientId: string; clientSecret: string;
  controlUrl: string;    // `${origin}/_sandbox`
  stop(): Promise<void>;
};

function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new Error(`Dynamics sandbox: ${name} must be a whole number of at least ${min}, not ${String(value)}`);
  return value;
}

function credentialsFor(seed: number | undefined): Credentials {
  if (seed === undefined) return { tenantId: randomUUID(), clientId: randomUUID(), clientSecret: `${randomUUID().replace(/-/g, '').slice(0, 8)}~${randomUUID().replace(/-/g, '')}` };
  if (!Number.isInteger(seed)) throw new Error(`Dynamics sandbox: seed must be a whole number, not ${String(seed)}`);
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const uuid = (salt: number) => `${hex(seed ^ (salt * 0x9e3779b1))}-${hex(salt).slice(4)}-4${hex(seed).slice(5)}-8${hex(salt + seed).slice(5)}-${hex(seed + salt)}${hex(salt).slice(4)}`;
  return { tenantId: uuid(21), clientId: uuid(22), clientSecret: `dyn~${hex(seed)}${uuid(23).replace(/-/g, '')}` };
}

export async function startDynamicsSandbox(options: DynamicsSandboxOptions = {}): Promise<DynamicsSandbox> {
  const credentials = credentialsFor(options.seed);
  const state = createState({
    now: options.now ?? (() => new Date()),
    credentials,
    limits: {
      requestsPer300s: whole('requestsPer300s', options.requestsPer300s, 6000, 0),
      executionMsPer300s: whole('executionMsPer300s', options.executionMsPer300s, 1_200_000, 0),
      concurrency: whole('concurrency', options.concurrency, 52, 0),
      operationMs: whole('operationMs', options.operationMs, DEFAULT_OPERATION_MS, 0),
      requestTimeoutMs: whole('requestTimeoutMs', options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, 1),
    },
    batchLineEnding: options.batchLineEnding,
    keyActivationMs: options.keyActivationMs === undefined ? undefined : whole('keyActivationMs', options.keyActivationMs, 0, 0),
    keyClock: options.keyClock,
    missingPrivileges: options.missingPrivileges,
    serverTime: options.serverTime,
    baseCurrency: options.baseCurrency,
    productsCreatedActive: options.productsCreatedActive,
    currencies: options.currencies,
  });
  const journal = options.journalPath === undefined ? undefined : attachJournal(state.store, options.journalPath);
  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(state, options.host ?? '127.0.0.1', options.port ?? 0);
  } catch (error) {
    journal?.close();
    throw error;
  }
  const { server, origin } = listening;
  state.origin = origin;
  return {
    orgUrl: `${origin}/`,
    authority: origin,
    tokenUrl: `${origin}/${credentials.tenantId}/oauth2/v2.0/token`,
    tenantId: credentials.tenantId,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    controlUrl: `${origin}/_sandbox`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      journal?.close();
    },
  };
}
