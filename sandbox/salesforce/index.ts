// A local Salesforce that jsforce 3 runs against unmodified: OAuth token endpoint, sObject REST,
// sObject Collections, SOQL queries with cursors, Bulk API 2.0 ingest, limits, plus /_sandbox test
// controls. One port serves both the login URL and the instance URL.
import { attachJournal } from './journal.ts';
import { listen } from './server.ts';
import { createState } from './state.ts';

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
};

export type SalesforceSandbox = {
  loginUrl: string;
  instanceUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  stop(): Promise<void>;
};

export async function startSalesforceSandbox(options: SalesforceSandboxOptions = {}): Promise<SalesforceSandbox> {
  const config = {
    clientId: options.clientId ?? 'sf-sandbox-client',
    clientSecret: options.clientSecret ?? 'sf-sandbox-secret',
    refreshToken: options.refreshToken ?? 'sf-sandbox-refresh-token',
    sessionTtlSeconds: options.sessionTtlSeconds ?? 7200,
    dailyApiLimit: options.dailyApiLimit ?? 100_000,
    now: options.now ?? (() => new Date()),
  };
  const state = createState(config);
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
    loginUrl: origin,
    instanceUrl: origin,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    refreshToken: config.refreshToken,
    async stop() {
      state.jobs.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      journal?.close();
    },
  };
}
