// Bearer tokens issued by the auth server and checked by the API. Opaque random strings (security
// is not the point, but tokens must not be guessable from the seed); expiry follows the `now` clock.
import { randomBytes } from 'node:crypto';

export class TokenRegistry {
  readonly #tokens = new Map<string, { clientId: string; expiresAtMs: number }>();

  issue(clientId: string, ttlSeconds: number, nowMs: number): string {
    const token = `sbx_${randomBytes(24).toString('base64url')}`;
    this.#tokens.set(token, { clientId, expiresAtMs: nowMs + ttlSeconds * 1000 });
    return token;
  }

  /** The client id of a valid token, or why it is refused. */
  check(token: string, nowMs: number): { clientId: string } | { problem: string } {
    const entry = this.#tokens.get(token);
    if (!entry) return { problem: 'the access token is not valid' };
    if (nowMs >= entry.expiresAtMs) return { problem: 'the access token has expired' };
    return { clientId: entry.clientId };
  }

  /** Every token issued so far stops working (POST /_sandbox/tokens/expire). */
  expireAll(): void {
    this.#tokens.clear();
  }
}
