// The access token of one HubSpot connection: a private app's token (it does not expire), or an OAuth
// access token from the refresh-token grant, renewed a few minutes before it expires and at once when
// HubSpot says it expired. A refused refresh (revoked app, wrong secret) is a CrmCredentialsRefusedError.
import { Client } from '@hubspot/api-client';
import { CrmCredentialsRefusedError, CrmError } from '../connector.ts';
import { hubspotErrorInfo } from './errors.ts';

export type HubSpotCredentials =
  | { auth: 'private-app'; accessToken: string }
  | { auth: 'oauth'; clientId: string; clientSecret: string; refreshToken: string };

export type TokenSource = { token(): Promise<string>; renew(): Promise<string> };

/** Renewed this long before HubSpot's expiry, so a call never starts with a token about to die. */
const RENEW_BEFORE_MS = 5 * 60_000;

export function createTokenSource(baseUrl: string, credentials: HubSpotCredentials, clock: () => Date = () => new Date()): TokenSource {
  if (credentials.auth === 'private-app') {
    return { token: async () => credentials.accessToken, renew: async () => credentials.accessToken };
  }
  const app = credentials;
  // The token endpoint needs no bearer token; this client only ever calls it.
  const oauth = new Client({ basePath: baseUrl, numberOfApiCallRetries: 0 });
  let current: { token: string; expiresAt: number } | undefined;
  let renewing: Promise<string> | undefined;

  async function refresh(): Promise<string> {
    try {
      const answer = await oauth.oauth.tokensApi.create('refresh_token', undefined, undefined, app.clientId, app.clientSecret, app.refreshToken);
      current = { token: answer.accessToken, expiresAt: clock().getTime() + answer.expiresIn * 1000 };
      return current.token;
    } catch (error) {
      const info = hubspotErrorInfo(error);
      const word = String((info?.context as { status?: unknown } | undefined)?.status ?? bodyStatus(error) ?? '');
      // A 429 is HubSpot's rate limit answering, not a refusal of the token: wait and try again.
      if (info?.status === 429) {
        throw new CrmError(`HubSpot's token endpoint is rate limited: ${info.message}`, { code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1000, cause: error });
      }
      if (info && info.status >= 400 && info.status < 500) {
        throw new CrmCredentialsRefusedError(`HubSpot refused the connection's OAuth refresh token (${word || info.status}): ${info.message}. Authorize the app again and save the new refresh token with crm-sync edit`, word || 'oauth_refused', error);
      }
      throw new CrmError(`HubSpot's token endpoint failed: ${info?.message ?? (error as Error).message}`, { code: 'OAUTH_UNAVAILABLE', retryable: true, cause: error });
    }
  }
  const renew = () =>
    (renewing ??= refresh().finally(() => {
      renewing = undefined;
    }));
  return {
    async token() {
      if (current && current.expiresAt - RENEW_BEFORE_MS > clock().getTime()) return current.token;
      return renew();
    },
    renew,
  };
}

/** HubSpot's own refusal word (BAD_REFRESH_TOKEN, BAD_CLIENT_ID, ...) from an OAuth error body. */
function bodyStatus(error: unknown): string | undefined {
  const body = (error as { body?: unknown }).body;
  const parsed = typeof body === 'string' ? safeJson(body) : body;
  const status = (parsed as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' && status !== 'error' ? status : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
