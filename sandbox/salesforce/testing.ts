// Helpers for tests that drive the sandbox with jsforce itself: a client-credentials connection that
// re-authenticates on 401, and the /_sandbox controls.
import jsforce, { type Connection } from 'jsforce';
import type { SalesforceSandbox } from './index.ts';

export async function control(sandbox: SalesforceSandbox, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sandbox.instanceUrl}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox control ${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

export const callCounts = (sandbox: SalesforceSandbox): Promise<Record<string, number>> => control(sandbox, 'GET', '/calls');

/**
 * A jsforce connection logged in with the client-credentials grant. jsforce's default refresh needs a
 * refresh token, which this grant never gives, so `refreshFn` asks for a new client-credentials token.
 */
export async function clientCredentialsConnection(sandbox: SalesforceSandbox, version = '62.0'): Promise<{ conn: Connection; refreshes: () => number }> {
  const oauth2 = new jsforce.OAuth2({ loginUrl: sandbox.loginUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
  let refreshes = 0;
  const conn = new jsforce.Connection({
    oauth2,
    version,
    refreshFn: (_conn, callback) => {
      refreshes += 1;
      oauth2.requestToken({ grant_type: 'client_credentials' }).then(
        (token) => callback(null, token.access_token, token),
        (error: Error) => callback(error),
      );
    },
  });
  await conn.authorize({ grant_type: 'client_credentials' });
  return { conn, refreshes: () => refreshes };
}
