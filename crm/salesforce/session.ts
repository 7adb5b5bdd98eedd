// A jsforce Connection for one Salesforce org: OAuth 2.0 client credentials (with a refresh function
// that fetches a new token when a session expires) or the refresh-token flow. The API version is set
// explicitly: jsforce's default (50.0) is years old.
import jsforce, { type Connection } from 'jsforce';
import { CrmError } from '../connector.ts';

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
};

export type SalesforceSecrets = { clientId: string; clientSecret: string; refreshToken?: string };

export async function openSalesforceSession(settings: SalesforceSettings, secrets: SalesforceSecrets): Promise<{ connection: Connection; userInfo: { id: string; organizationId: string } }> {
  const oauth2 = new jsforce.OAuth2({ loginUrl: settings.loginUrl, clientId: secrets.clientId, clientSecret: secrets.clientSecret, redirectUri: undefined as unknown as string });
  const version = settings.apiVersion ?? DEFAULT_SALESFORCE_API_VERSION;
  try {
    if (secrets.refreshToken) {
      // jsforce's own refresh function uses the refresh token whenever a session expires.
      const connection = new jsforce.Connection({ oauth2, version, refreshToken: secrets.refreshToken, instanceUrl: settings.loginUrl });
      const token = await oauth2.refreshToken(secrets.refreshToken);
      connection.accessToken = token.access_token;
      connection.instanceUrl = token.instance_url;
      return { connection, userInfo: parseIdUrl(token.id) };
    }
    const connection = new jsforce.Connection({
      oauth2,
      version,
      // Client credentials issue no refresh token: on 401 jsforce calls this, then replays the request.
      refreshFn: (conn, callback) => {
        oauth2
          .requestToken({ grant_type: 'client_credentials' })
          .then((token) => callback(null, token.access_token, token))
          .catch((error: Error) => callback(error));
      },
    });
    const userInfo = await connection.authorize({ grant_type: 'client_credentials' });
    return { connection, userInfo };
  } catch (error) {
    const detail = (error as { message?: string }).message ?? String(error);
    const code = (error as { name?: string }).name ?? 'Error';
    // jsforce names a token-endpoint error after its OAuth `error` field. Only these mean the
    // credentials themselves were refused; a 5xx, a rate limit or a dropped socket is worth retrying.
    if (CREDENTIALS_REFUSED.has(code)) {
      throw new CrmError(`Salesforce refused the connection's credentials (client id ${secrets.clientId}): ${detail}`, { code, retryable: false, cause: error });
    }
    throw new CrmError(`Salesforce's login did not answer properly (${code}: ${detail}); retrying`, { code: 'LOGIN_UNAVAILABLE', retryable: true, retryAfterMs: 1000, cause: error });
  }
}

const CREDENTIALS_REFUSED = new Set(['invalid_client', 'invalid_client_id', 'invalid_grant', 'unauthorized_client', 'inactive_user', 'inactive_org']);

function parseIdUrl(idUrl: string): { id: string; organizationId: string } {
  const [organizationId = '', id = ''] = new URL(idUrl).pathname.split('/').slice(-2);
  return { id, organizationId };
}
