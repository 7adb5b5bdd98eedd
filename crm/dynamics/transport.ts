// Every Dataverse call of one connection goes through here: the bearer token (renewed on a 401), a
// bound on requests in flight (Dataverse allows 52 concurrent requests per user, shared with the org's
// other integrations), and retries, because dynamics-web-api retries nothing:
// - 429 (service protection: requests, execution time, concurrency): wait Retry-After, then go on.
// - 5xx and network failures: a few retries with backoff.
// - Other 4xx: the caller's to answer (a DynamicsCallError keeping Dataverse's code and message).
// A fresh client per call: the client keeps its batch (startBatch ... executeBatch) on the instance,
// so two batches of one connection in flight at once must not share one.
// A $batch (issue #22 item 7) waits for room in the connection's execution-time budget
// (execution-budget.ts), gets a deadline from its size and the measured time per operation
// (batch-size.ts) instead of one fixed limit, and a $batch of writes that got no answer is never sent
// again here: Dataverse may have run some or all of it, and only the writer knows how to find out what
// (writes.ts: DynamicsUnansweredError).
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { DynamicsWebApi } from 'dynamics-web-api';
import { CrmCredentialsRefusedError, CrmError } from '../connector.ts';
import { createTokenSource, type DynamicsCredentials } from './auth.ts';
import { dataverseErrorInfo, SERVICE_PROTECTION_CODES, type DataverseErrorInfo } from './errors.ts';
import { createBatchSizer, type BatchSizer } from './batch-size.ts';
import { createExecutionBudget } from './execution-budget.ts';

export type TransportOptions = {
  orgUrl: string;
  apiVersion?: string;
  credentials: DynamicsCredentials;
  concurrency?: number;
  clock?: () => Date;
  wait?: (ms: number) => Promise<unknown>;
  /**
   * A call's own time limit (the client's timeout) for a call of one operation (default 120 s); a $batch
   * waits this plus three times its expected server time (batch-size.ts).
   */
  timeoutMs?: number;
  /** The longest expected server time of one $batch of writes (batch-size.ts TARGET_BATCH_MS); for tests. */
  batchTargetMs?: number;
  /** Dataverse's combined execution time allowed per 300 s (default 1,200,000 ms). */
  executionLimitMs?: number;
};

export type TransportFigures = {
  calls: number;
  batches: number;
  batchOperations: number;
  rateLimitWaits: number;
  rateLimitWaitMs: number;
  serverRetries: number;
  tokenRenewals: number;
  /** $batch calls held back for room in the execution-time budget, and how long in all. */
  executionWaits: number;
  executionWaitMs: number;
  /** $batch calls of writes that got no answer (lost, past their deadline, a 5xx): the writer found out what was written. */
  unanswered: number;
  /** Measured server time per write operation (ms), and the size the next $batch of writes may have. */
  perOperationMs: number;
  nextBatchSize: number;
};

export type CallOptions = {
  signal?: AbortSignal;
  /** Operations in this $batch: its deadline and execution-time reservation follow from them. */
  operations?: number;
  /**
   * A $batch of writes: its time per operation is measured, and when it gets no answer it is not sent
   * again here (DynamicsUnansweredError), because Dataverse may have run any part of it.
   */
  writes?: boolean;
};

export type DynamicsTransport = {
  /** Runs one client call (or one $batch) under this connection's token, bound and retries. */
  call<T>(what: string, run: (client: DynamicsWebApi) => Promise<T>, options?: CallOptions): Promise<T>;
  /** How many operations the next $batch of writes may hold (batch-size.ts). */
  batchSize(): number;
  /** How many $batches of writes may run at once (batch-size.ts; the execution-time ledger trims them). */
  batchLanes(): number;
  figures(): TransportFigures;
  readonly orgUrl: string;
};

/** Requests in flight at once (and $batches of writes, batch-size.ts) when the connection sets none: the connection settings' default. */
const DEFAULT_CONCURRENCY = 8;
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

/**
 * A $batch of writes that got no answer Dataverse finished: the connection dropped, the answer was cut
 * off or came later than its deadline, or a 5xx (Dataverse stopping a request past its 2 minutes answers
 * 500). Any part of it may have been written.
 */
export class DynamicsUnansweredError extends DynamicsCallError {
  override name = 'DynamicsUnansweredError';
}

/** A word for the sync's dead letters and retries: Dataverse's hex code, with NOT_FOUND for a missing record. */
export function codeOf(info: DataverseErrorInfo): string {
  if (info.status === 404) return 'NOT_FOUND';
  return info.code ?? (info.status ? `HTTP_${info.status}` : 'NETWORK');
}

export function createDynamicsTransport(options: TransportOptions): DynamicsTransport {
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  const tokens = createTokenSource(options.credentials, options.clock);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const limit = pLimit(concurrency);
  const serverUrl = options.orgUrl.endsWith('/') ? options.orgUrl : `${options.orgUrl}/`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  // Once the size has grown, as many $batches of writes at once as requests may be in flight.
  const sizer: BatchSizer = createBatchSizer({ targetMs: options.batchTargetMs, lanes: concurrency });
  const budget = createExecutionBudget({ limitMs: options.executionLimitMs });
  const figures = { calls: 0, batches: 0, batchOperations: 0, rateLimitWaits: 0, rateLimitWaitMs: 0, serverRetries: 0, tokenRenewals: 0, executionWaits: 0, executionWaitMs: 0, unanswered: 0 };

  const client = (deadlineMs: number) =>
    new DynamicsWebApi({
      serverUrl,
      dataApi: { version: options.apiVersion ?? '9.2' },
      onTokenRefresh: () => tokens.token(),
      timeout: deadlineMs,
      propagateErrors: true,
    });

  /** One attempt's wait for the slot, then the call under its deadline, its execution time counted for a $batch. */
  async function send<T>(what: string, run: (client: DynamicsWebApi) => Promise<T>, callOptions: CallOptions): Promise<T> {
    const operations = callOptions.operations;
    if (operations === undefined) {
      // One operation: the set limit, plus room for a Dataverse measured to be slow.
      const deadlineMs = sizer.deadlineMs(1, timeoutMs);
      return limit(() => answerWithin(run(client(deadlineMs)), what, deadlineMs));
    }
    const estimateMs = operations * sizer.perOperationMs();
    const deadlineMs = sizer.deadlineMs(operations, timeoutMs);
    const room = await budget.reserve(estimateMs, callOptions.signal);
    if (room.waitedMs > 0) {
      figures.executionWaits += 1;
      figures.executionWaitMs += Math.round(room.waitedMs);
    }
    let started: number | undefined;
    try {
      return await limit(async () => {
        started = performance.now();
        const answer = await answerWithin(run(client(deadlineMs)), what, deadlineMs);
        const tookMs = performance.now() - started;
        room.settle(tookMs);
        if (callOptions.writes) sizer.answered(operations, tookMs);
        return answer;
      });
    } catch (error) {
      const tookMs = started === undefined ? 0 : performance.now() - started;
      // Without an answer the server may still be at it: its expected time stays counted.
      room.settle(Math.max(tookMs, started === undefined ? 0 : estimateMs));
      const status = dataverseErrorInfo(error).status;
      if (callOptions.writes && (status === undefined || status >= 500)) sizer.unanswered(operations, tookMs);
      throw error;
    }
  }

  async function attempt<T>(what: string, run: (client: DynamicsWebApi) => Promise<T>, callOptions: CallOptions): Promise<T> {
    const { signal, operations } = callOptions;
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
        return await send(what, run, callOptions);
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
        if (transient && callOptions.writes) {
          // Not sent again here: the writer reads what was written first (writes.ts).
          figures.unanswered += 1;
          throw new DynamicsUnansweredError(what, info, error);
        }
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
   * and its activity heartbeating on. The call's own deadline turns that into a network failure: a read
   * is retried like one; a $batch of writes is the writer's to recover (it may have been carried out).
   */
  function answerWithin<T>(work: Promise<T>, what: string, deadlineMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`Dataverse gave no complete answer to ${what} within ${deadlineMs / 1000} s`), { code: 'ETIMEDOUT' })), deadlineMs);
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  return {
    orgUrl: serverUrl,
    call: (what, run, callOptions = {}) => attempt(what, run, callOptions),
    batchSize: () => sizer.next(),
    batchLanes: () => sizer.lanes(),
    figures: () => ({ ...figures, perOperationMs: Math.round(sizer.perOperationMs() * 10) / 10, nextBatchSize: sizer.next() }),
  };
}
