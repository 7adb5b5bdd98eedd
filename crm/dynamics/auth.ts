// The access token of one Dynamics connection: OAuth 2.0 client credentials from the Microsoft identity
// platform (v2.0 token endpoint), cached until shortly before it expires and renewed at once when
// Dataverse answers 401. Plain fetch rather than @azure/msal-node: MSAL first calls instance discovery
// and the authority's openid-configuration, which a private or sovereign authority (and the sandbox)
// may not answer, and one form POST is all client credentials need. A refused app (wrong secret,
// unknown client or tenant) is a CrmCredentialsRefusedError keeping Microsoft's AADSTS message.
import { CrmCredentialsRefusedError, CrmError } from '../connector.ts';

export type DynamicsCredentials = { authority: string; tenantId: string; clientId: string; clientSecret: string; scope: string };

export type TokenSource = { token(): Promise<string>; renew(): Promise<string> };

/** Renewed this long before the platform's expiry, so a call never starts with a token about to die. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** AADSTS answers that only new credentials fix (the others, e.g. throttling, are retried). */
const REFUSALS = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant', 'invalid_request', 'invalid_scope', 'invalid_resource', 'tenant_not_found']);

export function tokenUrl(credentials: Pick<DynamicsCredentials, 'authority' | 'tenantId'>): string {
  return `${credentials.authority.replace(/\/+$/, '')}/${encodeURIComponent(credentials.tenantId)}/oauth2/v2.0/token`;
}

export function createTokenSource(credentials: DynamicsCredentials, clock: () => Date = () => new Date()): TokenSource {
  let current: { token: string; expiresAt: number } | undefined;
  let renewing: Promise<string> | undefined;

  async function request(): Promise<string> {
    let response: Response;
    try {
      response = await fetch(tokenUrl(credentials), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret, scope: credentials.scope }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new CrmError(`The Microsoft identity platform could not be reached: ${(error as Error).message}`, { code: 'TOKEN_ENDPOINT_UNREACHABLE', retryable: true, cause: error });
    }
    const text = await response.text();
    const body = safeJson(text) as { access_token?: string; expires_in?: number; error?: string; error_description?: string } | undefined;
    if (response.ok && body?.access_token) {
      current = { token: body.access_token, expiresAt: clock().getTime() + Number(body.expires_in ?? 3599) * 1000 };
      return current.token;
    }
    const word = body?.error ?? `HTTP_${response.status}`;
    // The first line of error_description is Microsoft's message; the rest are trace and correlation ids.
    const message = (body?.error_description ?? text).split(/\r?\n/)[0] || `HTTP ${response.status}`;
    if (response.status >= 400 && response.status < 500 && response.status !== 429 && REFUSALS.has(word)) {
      throw new CrmCredentialsRefusedError(`The Microsoft identity platform refused the Dynamics app's credentials (${word}): ${message}. Fix the app registration or save a new client secret with crm-sync edit`, word);
    }
    throw new CrmError(`The Microsoft identity platform did not issue a token (${word}): ${message}`, { code: 'TOKEN_UNAVAILABLE', retryable: true });
  }

  const renew = () =>
    (renewing ??= request().finally(() => {
      renewing = undefined;
    }));
  return {
    async token() {
      if (current && current.expiresAt - RENEW_BEFORE_MS > clock().getTime()) return current.token;
      return renew();
    },
    renew() {
      current = undefined;
      return renew();
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
