// OAuth 2.0 client credentials (§5): a form POST to {authUrl}/oauth2/token with `resource` = the API's
// base URL. Tokens are cached, renewed ahead of expiry, renewed once more on a 401, and concurrent
// callers share one renewal.
import { CommerceAuthError, CommerceCredentialsRefusedError, describeBody } from './errors.ts';

export type TokenProviderOptions = {
  authUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
  /** Renew this long before the token expires (default 5 minutes). */
  renewBeforeMs?: number;
  timeoutMs?: number;
  now?: () => number;
};

type CachedToken = { value: string; renewAt: number };
type ResolvedOptions = Required<Omit<TokenProviderOptions, 'fetch'>> & { fetch: typeof fetch };

export class TokenProvider {
  readonly #options: ResolvedOptions;
  #cached?: CachedToken;
  #pending?: Promise<CachedToken>;
  /** How many tokens were fetched: tests and metrics read it. */
  fetchCount = 0;

  constructor(options: TokenProviderOptions) {
    // Explicit defaults: a caller passing `timeoutMs: undefined` must not erase them.
    this.#options = {
      ...options,
      renewBeforeMs: options.renewBeforeMs ?? 5 * 60_000,
      timeoutMs: options.timeoutMs ?? 30_000,
      now: options.now ?? Date.now,
      fetch: options.fetch ?? globalThis.fetch,
    };
  }

  /** A valid token, from the cache when it is fresh enough. */
  async token(): Promise<string> {
    const cached = this.#cached;
    if (cached && cached.renewAt > this.#options.now()) return cached.value;
    return (await this.#renew()).value;
  }

  /** The API refused `rejected`: drop it (unless another caller already replaced it) and get a new one. */
  async renewAfterRejection(rejected: string): Promise<string> {
    if (this.#cached && this.#cached.value !== rejected) return this.#cached.value;
    this.#cached = undefined;
    return (await this.#renew()).value;
  }

  #renew(): Promise<CachedToken> {
    // Single flight: everyone waiting for a token waits for the same request.
    this.#pending ??= this.#fetchToken().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #fetchToken(): Promise<CachedToken> {
    const { authUrl, baseUrl, clientId, clientSecret } = this.#options;
    const url = new URL('oauth2/token', authUrl.endsWith('/') ? authUrl : `${authUrl}/`);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, resource: baseUrl });
    this.fetchCount += 1;
    let response: Response;
    try {
      response = await this.#options.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
    } catch (error) {
      // Not an auth verdict: let the caller's retry policy treat it as a network failure.
      throw Object.assign(new Error(`Could not reach the token endpoint ${url.origin}: ${(error as Error).message}`), { cause: error, transientTokenFailure: true });
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    if (response.status >= 500 || response.status === 429) {
      throw Object.assign(new Error(`The token endpoint answered HTTP ${response.status}: ${this.#redact(describeBody(body))}`), { transientTokenFailure: true });
    }
    if (!response.ok) {
      throw new CommerceCredentialsRefusedError(
        `The commerce API refused the client credentials of ${clientId}: ${this.#redact(describeBody(body))} (HTTP ${response.status})`,
        { status: response.status, body },
      );
    }
    const fields = body as { access_token?: unknown; expires_in?: unknown };
    if (typeof fields?.access_token !== 'string' || !fields.access_token) {
      throw new CommerceAuthError('The token endpoint answered without an access_token');
    }
    const lifetimeSeconds = Number(fields.expires_in) > 0 ? Number(fields.expires_in) : 3600;
    // Renew ahead of expiry: 5 minutes before for an hour's token, a tenth of the lifetime for short ones.
    const lifetimeMs = lifetimeSeconds * 1000;
    const margin = Math.min(this.#options.renewBeforeMs, lifetimeMs / 10);
    this.#cached = { value: fields.access_token, renewAt: this.#options.now() + lifetimeMs - margin };
    return this.#cached;
  }

  /** Whatever a token endpoint echoes back, our secret never reaches an error message. */
  #redact(text: string): string {
    return this.#options.clientSecret ? text.split(this.#options.clientSecret).join('[redacted]') : text;
  }

  // The secret must not show up in logs or error dumps of this object.
  toJSON() {
    return { authUrl: this.#options.authUrl, clientId: this.#options.clientId };
  }
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `TokenProvider(${this.#options.clientId})`;
  }
}
