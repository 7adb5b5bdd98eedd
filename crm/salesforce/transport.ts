// How jsforce reaches Salesforce: a time limit on every request and a bound on sockets.
//
// jsforce 3 sends every request through a Connection's (and an OAuth2's) `_transport`, whose
// `httpRequest(request, options)` accepts `options.timeout`; without one jsforce waits up to 30 minutes
// (lib/request.js). A transport of our own adds the timeout to every call, token requests included, and
// turns jsforce's abort into an error that says what happened. The timeout covers jsforce's own retries
// of a GET, until the response headers arrive.
//
// Sockets: jsforce fetches through one undici dispatcher for the whole process (`setDispatcher` in
// lib/request.js); it offers no per-connection agent. An Agent with `connections` bounds the sockets
// per origin, and each Salesforce org has an origin of its own (its My Domain), so this bounds each org.
// The same dispatcher hands answers over whole (whole-answers.ts): a body cut off half way must fail
// the request, not crash the process from inside jsforce's streams.
import { createRequire } from 'node:module';
import type { Connection, HttpRequest, HttpResponse, OAuth2 } from 'jsforce';
import { setDispatcher } from 'jsforce/lib/request.js';
import { Transport } from 'jsforce/lib/transport.js';
import { StreamPromise } from 'jsforce/lib/util/promise.js';
import { wholeAnswers } from './whole-answers.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Open sockets per Salesforce origin, at most: the connector makes a few calls at a time per org. */
export const SOCKETS_PER_SALESFORCE_ORIGIN = 10;

/** A Salesforce request that got no answer in time: worth another attempt (every call we make is idempotent). */
export class SalesforceRequestTimeoutError extends Error {
  override name = 'SalesforceRequestTimeout';
  readonly timeoutMs: number;
  constructor(timeoutMs: number, url: string, cause: unknown) {
    super(`Salesforce did not answer within ${formatSeconds(timeoutMs)} (${describeUrl(url)})`, { cause });
    this.timeoutMs = timeoutMs;
  }
}

type RequestOptions = Parameters<Transport['httpRequest']>[1];

class TimeLimitedTransport extends Transport {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super();
    this.timeoutMs = timeoutMs;
  }

  override httpRequest(request: HttpRequest, options: RequestOptions = {}): StreamPromise<HttpResponse> {
    const inner = super.httpRequest(request, { ...options, timeout: this.timeoutMs });
    return StreamPromise.create(() => ({
      stream: inner.stream(),
      promise: inner.then(undefined, (error: unknown) => {
        // Only the timeout aborts jsforce's internal AbortController; 'Request Timeout' is its other wording.
        const name = (error as { name?: string }).name;
        if (name === 'AbortError' || (error as Error).message === 'Request Timeout') throw new SalesforceRequestTimeoutError(this.timeoutMs, request.url, error);
        throw error;
      }),
    }));
  }
}

/** Every request of `connection` and of its OAuth2 client (logins, refreshes) gets `timeoutMs`. */
export function limitRequestTime(connection: Connection, oauth2: OAuth2, timeoutMs: number): void {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new Error(`requestTimeoutMs must be a positive number of milliseconds, not ${timeoutMs}`);
  const transport = new TimeLimitedTransport(timeoutMs);
  connection._transport = transport;
  (oauth2 as unknown as { _transport: Transport })._transport = transport;
}

let socketsBounded = false;
/** Once per process: jsforce's dispatcher keeps at most SOCKETS_PER_SALESFORCE_ORIGIN sockets per origin. */
export function boundSalesforceSockets(): void {
  if (socketsBounded) return;
  // The Agent must come from the undici jsforce itself fetches with.
  const requireFromJsforce = createRequire(createRequire(import.meta.url).resolve('jsforce'));
  const { Agent } = requireFromJsforce('undici') as typeof import('undici');
  setDispatcher(new Agent({ connect: { allowH2: false }, connections: SOCKETS_PER_SALESFORCE_ORIGIN }).compose(wholeAnswers()));
  socketsBounded = true;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The path only: a token request's URL carries nothing secret, but query strings may hold SOQL. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
