// The Microsoft identity platform v2.0 token endpoint (client credentials) and the bearer tokens it
// issues: errors in AADSTS shape, tokens that expire after expires_in on the sandbox clock, at once
// by /_sandbox/tokens/expire, and a client secret that /_sandbox/clients/revoke makes invalid.
import { randomUUID } from 'node:crypto';
import type { BearerRefusal } from '../auth-ledger.ts';

export const TOKEN_SECONDS = 3599;
export type Credentials = { tenantId: string; clientId: string; clientSecret: string };
export type TokenReply = { status: number; json: Record<string, unknown> };

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function createTokens(credentials: Credentials, now: () => Date, resource: () => string) {
  const issued = new Map<string, { clientId: string; expires: number }>();
  let revoked = false;

  const aad = (status: number, error: string, code: number, text: string): TokenReply => {
    const at = now();
    const trace = randomUUID();
    const correlation = randomUUID();
    return {
      status,
      json: {
        error,
        error_description: `AADSTS${code}: ${text} Trace ID: ${trace} Correlation ID: ${correlation} Timestamp: ${at.toISOString().replace('T', ' ').slice(0, 19)}Z`,
        error_codes: [code],
        timestamp: `${at.toISOString().replace('T', ' ').slice(0, 19)}Z`,
        trace_id: trace,
        correlation_id: correlation,
        error_uri: `https://login.microsoftonline.com/error?code=${code}`,
      },
    };
  };

  return {
    /** POST /{tenant}/oauth2/v2.0/token with a form body. */
    token(tenant: string, form: URLSearchParams): TokenReply {
      if (tenant !== credentials.tenantId) return aad(400, 'invalid_request', 90002, `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.`);
      const grant = form.get('grant_type');
      if (!grant) return aad(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'grant_type'.");
      if (grant !== 'client_credentials') return aad(400, 'unsupported_grant_type', 70003, `The app requested an unsupported grant type '${grant}'.`);
      const clientId = form.get('client_id');
      if (!clientId) return aad(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'client_id'.");
      if (clientId !== credentials.clientId) return aad(400, 'unauthorized_client', 700016, `Application with identifier '${clientId}' was not found in the directory '${tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`);
      const secret = form.get('client_secret');
      if (!secret) return aad(401, 'invalid_client', 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.");
      if (secret !== credentials.clientSecret || revoked) return aad(401, 'invalid_client', 7000215, `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`);
      const scope = form.get('scope');
      if (!scope) return aad(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
      if (!scope.endsWith('/.default') || scope.trim().includes(' ')) return aad(400, 'invalid_scope', 70011, `The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid. The scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`);
      const wanted = scope.slice(0, -'/.default'.length).replace(/\/+$/, '');
      if (wanted.toLowerCase() !== resource().toLowerCase()) return aad(400, 'invalid_resource', 500011, `The resource principal named ${wanted} was not found in the tenant named ${tenant}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.`);
      const iat = Math.floor(now().getTime() / 1000);
      const exp = iat + TOKEN_SECONDS;
      const token = `${b64({ typ: 'JWT', alg: 'RS256' })}.${b64({ aud: resource(), iss: `https://sts.windows.net/${tenant}/`, iat, nbf: iat, exp, appid: clientId, tid: tenant, oid: randomUUID(), jti: randomUUID() })}.${Buffer.from(randomUUID()).toString('base64url')}`;
      issued.set(token, { clientId, expires: exp * 1000 });
      return { status: 200, json: { token_type: 'Bearer', expires_in: TOKEN_SECONDS, ext_expires_in: TOKEN_SECONDS, access_token: token } };
    },
    /** The client id a bearer header stands for, or undefined (missing, unknown or expired). */
    check(authorization: string | undefined): string | undefined {
      const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      const entry = token ? issued.get(token) : undefined;
      if (!entry || now().getTime() >= entry.expires) return undefined;
      return entry.clientId;
    },
    /** Why check() refuses a header: no token, one never issued here, or an expired one. */
    refusal(authorization: string | undefined): BearerRefusal {
      const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      if (!token) return 'missing';
      return issued.has(token) ? 'expired' : 'unknown';
    },
    expireAll() {
      const at = now().getTime();
      for (const entry of issued.values()) entry.expires = Math.min(entry.expires, at);
      return issued.size;
    },
    revoke(on: boolean) {
      revoked = on;
    },
    clear: () => issued.clear(),
  };
}

export type Tokens = ReturnType<typeof createTokens>;
