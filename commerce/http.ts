// One request to the commerce API: bearer token, per-request timeout, bounded sockets, typed errors, and retries with
// jittered exponential backoff (p-retry) that honour Retry-After. Whether a request may be repeated
// depends on the operation (retry-policy.ts): a non-idempotent POST is never blindly sent twice.
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';
import type { TokenProvider } from './auth.ts';
import { createBoundedFetch } from './bounded-fetch.ts';
import { CommerceApiError, CommerceAuthError, CommerceNetworkError, CommerceResponseError } from './errors.ts';
import { createQuotaPacing, type QuotaPacing } from './quota-pacing.ts';
import type { RetryPolicy } from './retry-policy.ts';

export type HttpOptions = {
  baseUrl: string;
  tokens: TokenProvider;
  /** Default: a fetch of its own with at most `maxConnectionsPerOrigin` sockets (bounded-fetch.ts). */
  fetch?: typeof fetch;
  /** Sockets at once per origin when no `fetch` is given (default 16); more calls wait for a free one. */
  maxConnectionsPerOrigin?: number;
  timeoutMs?: number;
  /** Retries after the first attempt (default 6). */
  retries?: number;
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Longest Retry-After we wait for within one call (default 60 s); longer ones surface as the error. */
  maxRetryAfterMs?: number;
  onRetry?: (info: { operation: string; attempt: number; error: Error; delayMs: number }) => void;
  /** Pacing of each organization's calls inside its service quotas (quota-pacing.ts; on by default, false: off). */
  quotaPacing?: QuotaPacing;
};

export type RequestSpec = {
  /** 'METHOD /path/template', for errors and logs. */
  operation: string;
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  policy: RetryPolicy;
};

/** Errors of connection set-up: the request surely never reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

export function createHttp(options: HttpOptions) {
  const doFetch = options.fetch ?? createBoundedFetch(options.maxConnectionsPerOrigin);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;

  /** `renewals`: a 401 renews the token and tries again, at most twice (a token can expire in flight). */
  async function attempt(spec: RequestSpec, renewals = 2): Promise<unknown> {
    const url = new URL(spec.path.replace(/^\//, ''), options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    const token = await options.tokens.token();
    let response: Response;
    try {
      response = await doFetch(url, {
        method: spec.method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new CommerceNetworkError(spec.operation, error, !NOT_SENT_CODES.has(errorCode(error)));
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new CommerceNetworkError(spec.operation, error, true);
    }
    const body = parseJson(text);
    if (response.status === 401) {
      if (renewals > 0) {
        await options.tokens.renewAfterRejection(token);
        return attempt(spec, renewals - 1);
      }
      throw new CommerceAuthError(`The commerce API refused a freshly issued token for ${spec.operation}`, { status: 401, body: body.value ?? text });
    }
    if (!response.ok) {
      throw new CommerceApiError({
        status: response.status,
        operation: spec.operation,
        body: body.ok ? body.value : text,
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      });
    }
    if (response.status === 204 || text === '') return undefined;
    if (!body.ok) throw new CommerceResponseError(spec.operation, `${body.error} (${text.length} bytes received)`);
    return body.value;
  }

  // Every attempt waits for room in its organization's quotas (the one place the pacer is hooked).
  // A quota wait inside a call is bounded as a Retry-After is (maxRetryAfterMs); longer, the call fails with the wait.
  const paced = createQuotaPacing({ baseUrl: options.baseUrl, pacing: options.quotaPacing === false ? false : { maxWaitMs: maxRetryAfterMs, ...options.quotaPacing } }, attempt, request);

  async function request(spec: RequestSpec): Promise<unknown> {
    const startedAt = Date.now();
    return pRetry(
      async () => {
        try {
          return await paced(spec);
        } catch (error) {
          if (!mayRetry(spec, error as Error, startedAt)) throw new AbortError(error as Error);
          throw error;
        }
      },
      {
        retries: options.retries ?? 6,
        minTimeout: options.minRetryDelayMs ?? 250,
        maxTimeout: options.maxRetryDelayMs ?? 10_000,
        factor: 2,
        randomize: true,
        onFailedAttempt: async ({ error, attemptNumber, retryDelay, retriesLeft }) => {
          if (retriesLeft === 0) return;
          // Wait at least as long as the service asked; the backoff delay follows this callback.
          const retryAfterMs = (error as CommerceApiError).retryAfterMs ?? 0;
          const extra = Math.max(0, retryAfterMs - retryDelay);
          options.onRetry?.({ operation: spec.operation, attempt: attemptNumber, error, delayMs: retryDelay + extra });
          if (extra > 0) await sleep(extra);
        },
      },
    );
  }

  function mayRetry(spec: RequestSpec, error: Error, startedAt: number): boolean {
    if (error instanceof CommerceAuthError) return false;
    if (error instanceof CommerceApiError) {
      if ((error.retryAfterMs ?? 0) > maxRetryAfterMs) return false;
      if (error.status === 429) return true; // rejected before any processing: safe for every operation
      if (error.status < 500) return false;
    } else if (!(error instanceof CommerceNetworkError || error instanceof CommerceResponseError || isTransientTokenFailure(error))) {
      return false;
    }
    // A token-endpoint hiccup happened before the API call itself: the call was never sent.
    const surelyNotProcessed = (error instanceof CommerceNetworkError && !error.mayHaveBeenProcessed) || isTransientTokenFailure(error);
    if (surelyNotProcessed) return true;
    switch (spec.policy.kind) {
      case 'idempotent':
        return true;
      case 'dedup-window':
        // Repeating the identical body is safe only while the service still deduplicates it.
        return Date.now() - startedAt < spec.policy.windowMs;
      case 'unsafe':
        return false;
    }
  }

  return { request };
}

export type Http = ReturnType<typeof createHttp>;

function isTransientTokenFailure(error: Error): boolean {
  return (error as { transientTokenFailure?: boolean }).transientTokenFailure === true;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string; value?: undefined } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code ?? (error as { code?: string })?.code ?? '';
}

/** Retry-After in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
