// A jsforce Connection for one Salesforce org: OAuth 2.0 client credentials or the refresh-token flow,
// each with a refresh function of ours that fetches a new token when a session expires (so a refusal
// by the token endpoint keeps its OAuth code, see errors.ts). The API version is set explicitly:
// jsforce's default (50.0) is years old. Every request is time-limited (transport.ts). Refresh-token
// renewals go through a vault (refresh-tokens.ts), which keeps a rotated refresh token.
import jsforce, { type Connection } from 'jsforce';
import { CrmError } from '../connector.ts';
import { credentialsRefusal, type SignIn } from './errors.ts';
import { memoryRefreshTokenVault, renewThroughVault, type RefreshTokenVault } from './refresh-tokens.ts';
import { boundSalesforceSockets, DEFAULT_REQUEST_TIMEOUT_MS, limitRequestTime, SalesforceRequestTimeoutError } from './transport.ts';

export const DEFAULT_SALESFORCE_API_VERSION = '62.0';

export type SalesforceSettings = {
  loginUrl: string;
  apiVersion?: string;
  /** Records above this count go through Bulk API 2.0 instead of sObject Collections (default 2000). */
  bulkThreshold?: number;
  /** Share of the daily API limit kept free for the org's other work (default 0.2). */
  reservedShare?: number;
  /** Extra look-back on incremental reads, against clock skew and late commits (default 600 s). */
  lookbackSeconds?: number;
  /** How long a connection stays parked after REQUEST_LIMIT_EXCEEDED before it checks again (default 1 h). */
  parkSeconds?: number;
  bulkPollIntervalMs?: number;
  bulkPollTimeoutMs?: number;
  /** Quick retries of a transient failure inside one call (default 3), from this delay (default 250 ms). */
  retries?: number;
  minRetryDelayMs?: number;
  /** Longest wait for one Salesforce request, token requests included (default 60,000 ms); a timeout is retryable. */
  requestTimeoutMs?: number;
};

export type SalesforceSecrets = {
  clientId: string;
  clientSecret: string;
  refreshToken?: string;
  /**
   * Where a rotated refresh token goes (the connection's sealed secrets, for a saved connection). Without
   * one, the token is kept in memory for as long as these secrets are in use.
   */
  refreshTokens?: RefreshTokenVault;
};

// One vault per secrets object, so a session opened again after a failure renews with the newest token.
const memoryVaults = new WeakMap<SalesforceSecrets, RefreshTokenVault>();
function vaultFor(secrets: SalesforceSecrets): RefreshTokenVault {
  if (secrets.refreshTokens) return secrets.refreshTokens;
  let vault = memoryVaults.get(secrets);
  if (!vault) memoryVaults.set(secrets, (vault = memoryRefreshTokenVault(secrets.refreshToken)));
  return vault;
}

type TokenResponse = { access_token: string; instance_url: string; id: string };

export async function openSalesforceSession(settings: SalesforceSettings, secrets: SalesforceSecrets): Promise<{ connection: Connection; userInfo: { id: string; organizationId: string } }> {
  boundSalesforceSockets();
  const oauth2 = new jsforce.OAuth2({ loginUrl: settings.loginUrl, clientId: secrets.clientId, clientSecret: secrets.clientSecret, redirectUri: undefined as unknown as string });
  const version = settings.apiVersion ?? DEFAULT_SALESFORCE_API_VERSION;
  const refreshToken = secrets.refreshToken;
  const requestToken = (): Promise<TokenResponse> =>
    refreshToken ? renewThroughVault(vaultFor(secrets), refreshToken, (token) => oauth2.refreshToken(token)) : oauth2.requestToken({ grant_type: 'client_credentials' });
  const connection = new jsforce.Connection({
    oauth2,
    version,
    instanceUrl: settings.loginUrl,
    // On 401 jsforce calls this, then replays the request. jsforce keeps only the message of an error
    // given here, so the message carries the OAuth code: "inactive_user: user is inactive".
    refreshFn: (_conn, callback) => {
      requestToken().then(
        (token) => callback(null, token.access_token, token as never),
        (error: unknown) => callback(new Error(`${tokenErrorCode(error)}: ${(error as Error).message ?? String(error)}`)),
      );
    },
  });
  limitRequestTime(connection, oauth2, settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  try {
    const token = await requestToken();
    connection.accessToken = token.access_token;
    connection.instanceUrl = token.instance_url;
    return { connection, userInfo: parseIdUrl(token.id) };
  } catch (error) {
    throw loginError(error, secrets.clientId, { loginUrl: settings.loginUrl, flow: refreshToken ? 'refresh_token' : 'client_credentials' });
  }
}

/** jsforce names a token-endpoint error after its OAuth `error` field (ERROR_HTTP_<status> without one). */
function tokenErrorCode(error: unknown): string {
  if (error instanceof SalesforceRequestTimeoutError) return 'timeout';
  return (error as { name?: string }).name ?? 'Error';
}

function loginError(error: unknown, clientId: string, signIn: SignIn): CrmError {
  const detail = (error as { message?: string }).message ?? String(error);
  const code = tokenErrorCode(error);
  // Only these codes mean the credentials (or the sign-in's setup) were refused; a 5xx, a rate limit, a
  // timeout or a dropped socket is worth retrying.
  const refused = credentialsRefusal(code, detail, clientId, error, signIn);
  if (refused) return refused;
  return new CrmError(`Salesforce's login did not answer properly (${code}: ${detail}); retrying`, { code: 'LOGIN_UNAVAILABLE', retryable: true, retryAfterMs: 1000, cause: error });
}

function parseIdUrl(idUrl: string): { id: string; organizationId: string } {
  const [organizationId = '', id = ''] = new URL(idUrl).pathname.split('/').slice(-2);
  return { id, organizationId };
}
