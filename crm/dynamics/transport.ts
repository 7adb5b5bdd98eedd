// Every Dataverse call of one connection goes through here: the bearer token (renewed on a 401), a
// bound on requests in flight (Dataverse allows 52 concurrent requests per user, shared with the org's
// other integrations), and retries, because dynamics-web-api retries nothing:
// - 429 (service protection: requests, execution time, concurrency): wait Retry-After, then go on.
// - 5xx and network failures: a few retries with backoff.
// - Other 4xx: the caller's to answer (a DynamicsCallError keeping Dataverse's code and message).
// A fresh client per call: the client keeps its batch (startBatch ... executeBatch) on the instance,
// so two batches of one connection in flight at once must not share one.
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { DynamicsWebApi } from 'dynamics-web-api';
import { CrmCredentialsRefusedError, CrmError } from '../connector.ts';
import { createTokenSource, type DynamicsCredentials } from './auth.ts';
import { dataverseErrorInfo, SERVICE_PROTECTION_CODES, type DataverseErrorInfo } from './errors.ts';

export type TransportOptions = {
  orgUrl: string;
  apiVersion?: string;
  credentials: DynamicsCredentials;
  concurrency?: number;
  clock?: () => Date;
  wait?: (ms: number) => Promise<unknown>;
  /** A call's own time limit (the client's timeout). */
  timeoutMs?: number;
};

export type TransportFigures = { calls: number; batches: number; batchOperations: number; rateLimitWaits: number; rateLimitWaitMs: number; serverRetries: number; tokenRenewals: number };

export type DynamicsTransport = {
  /** Runs one client call (or one $batch) under this connection's token, bound and retries. */
  call<T>(what: string, run: (client: DynamicsWebApi) => Promise<T>, options?: { signal?: AbortSignal; operations?: number }): Promise<T>;
  figures(): TransportFigures;
  readonly orgUrl: string;
};

const MAX_RATE_WAITS = 8;
const MAX_SERVER_RETRIES = 4;
const MAX_RENEWALS = 3;
/** Used when a 429 carries no Retry-After (Microsoft always sends one; a proxy might not). */
const DEFAULT_RATE_WAIT_MS = 5_000;

export class DynamicsCallError extends CrmError {
  override name = 'DynamicsCallError';
  readonly info: DataverseErrorInfo;
  constructor(what: string, info: DataverseErrorInfo, cause: unknown) {
    super(`Dataverse refused ${what}: ${info.message}`, { code: codeOf(info), retryable: info.status === undefined || info.status >= 500 || info.status === 429, retryAfterMs: info.retryAfterMs, cause });
    this.info = info;
  }
}

/** A word for the sync's dead letters and retries: Dataverse's hex code, with NOT_FOUND for a missing record. */
export function codeOf(info: DataverseErrorInfo): string {
  if (info.status === 404) return 'NOT_FOUND';
  return info.code ?? (info.status ? `HTTP_${info.status}` : 'NETWORK');
}

export function createDynamicsTransport(options: TransportOptions): DynamicsTransport {
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  const tokens = createTokenSource(options.credentials, options.clock);
  const limit = pLimit(options.concurrency ?? 8);
  const serverUrl = options.orgUrl.endsWith('/') ? options.orgUrl : `${options.orgUrl}/`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const figures: TransportFigures = { calls: 0, batches: 0, batchOperations: 0, rateLimitWaits: 0, rateLimitWaitMs: 0, serverRetries: 0, tokenRenewals: 0 };

  const client = () =>
    new DynamicsWebApi({
      serverUrl,
      dataApi: { version: options.apiVersion ?? '9.2' },
      onTokenRefresh: () => tokens.token(),
      timeout: timeoutMs,
      propagateErrors: true,
    });

  async function attempt<T>(what: string, run: (client: DynamicsWebApi) => Promise<T>, signal: AbortSignal | undefined, operations: number | undefined): Promise<T> {
    let rateWaits = 0;
    let serverRetries = 0;
    // A token can expire between its renewal and the call's arrival (a slow answer, a wait for a slot):
    // a few renewals per call before a refusal is believed.
    let renewals = 0;
    for (;;) {
      signal?.throwIfAborted();
      try {
        figures.calls += 1;
        if (operations !== undefined) {
          figures.batches += 1;
          figures.batchOperations += operations;
        }
        return await limit(() => answerWithin(run(client()), what));
      } catch (error) {
        if (error instanceof CrmError) throw error;
        const info = dataverseErrorInfo(error);
        if (info.status === 401 && renewals < MAX_RENEWALS) {
          renewals += 1;
          figures.tokenRenewals += 1;
          await tokens.renew();
          continue;
        }
        if (info.status === 401) {
          throw new CrmCredentialsRefusedError(`Dataverse refused the Dynamics app's token for ${what}: ${info.message}. Check that the app registration is an application user of the environment with a security role`, info.code ?? 'UNAUTHORIZED', error);
        }
        if (info.status === 429 && rateWaits < MAX_RATE_WAITS) {
          rateWaits += 1;
          const ms = info.retryAfterMs ?? DEFAULT_RATE_WAIT_MS;
          figures.rateLimitWaits += 1;
          figures.rateLimitWaitMs += ms;
          await wait(ms);
          continue;
        }
        const transient = info.status === undefined || info.status >= 500;
        if (transient && serverRetries < MAX_SERVER_RETRIES && !signal?.aborted) {
          serverRetries += 1;
          figures.serverRetries += 1;
          await wait(250 * 2 ** serverRetries);
          continue;
        }
        if (info.status === 429) {
          const limitName = SERVICE_PROTECTION_CODES[info.code ?? ''] ?? 'a service protection limit';
          throw new DynamicsCallError(what, { ...info, message: `${info.message} (Dataverse limits ${limitName}; still limited after ${rateWaits} waits)` }, error);
        }
        throw new DynamicsCallError(what, info, error);
      }
    }
  }

  /**
   * dynamics-web-api settles a call only on its answer's 'end' (and its timeout only watches an idle
   * socket): an answer cut off half way, its connection dropped, would leave the call waiting forever
   * and its activity heartbeating on. The call's own deadline turns that into a network failure, which
   * is retried like one (every write is an upsert by key or an update by id: safe to repeat).
   */
  function answerWithin<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`Dataverse gave no complete answer to ${what} within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })), timeoutMs);
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  return {
    orgUrl: serverUrl,
    call: (what, run, callOptions = {}) => attempt(what, run, callOptions.signal, callOptions.operations),
    figures: () => ({ ...figures }),
  };
}
