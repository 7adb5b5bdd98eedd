// OAuth 2.0 token endpoint (client credentials and refresh token grants) and the identity URL that
// the token response points at. Token errors use OAuth's {error, error_description}, not the REST
// API's error array.
import { createHmac } from 'node:crypto';
import { json, type Ctx, type Reply } from './http.ts';
import { ORG_ID, USER_ID } from './ids.ts';

const oauthError = (status: number, error: string, description: string): Reply => json(status, { error, error_description: description });

/** Form fields from the body (form-encoded, as jsforce sends them) or, failing that, the query string. */
function tokenParams(ctx: Ctx): URLSearchParams {
  const params = new URLSearchParams(ctx.body);
  for (const [key, value] of ctx.url.searchParams) if (!params.has(key)) params.set(key, value);
  // HTTP Basic client authentication is accepted too.
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.headers.authorization ?? '');
  if (basic) {
    const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    if (id && !params.has('client_id')) params.set('client_id', decodeURIComponent(id));
    if (secret !== undefined && !params.has('client_secret')) params.set('client_secret', decodeURIComponent(secret));
  }
  return params;
}

export function identityUrl(origin: string): string {
  return `${origin}/id/${ORG_ID}/${USER_ID}`;
}

/** The token endpoint, its answer noted in the auth ledger under the client id the request named. */
export function token(ctx: Ctx): Reply {
  const params = tokenParams(ctx);
  const reply = issueToken(ctx, params);
  ctx.state.auth.tokenRequest(params.get('client_id'), reply.status === 200);
  return reply;
}

function issueToken(ctx: Ctx, params: URLSearchParams): Reply {
  const { config, sessions, refreshTokens } = ctx.state;
  const refusal = ctx.state.tokenRefusal.current();
  if (refusal) return oauthError(refusal.status, refusal.error, refusal.error_description);
  const grant = params.get('grant_type');
  if (grant !== 'client_credentials' && grant !== 'refresh_token') return oauthError(400, 'unsupported_grant_type', 'grant type not supported');
  const generic = onGenericLoginHost(ctx);
  // Client credentials are served on the org's My Domain only (wire doc, "Sign-in refusals").
  if (grant === 'client_credentials' && generic) return oauthError(400, 'invalid_grant', 'request not supported on this domain');
  if (params.get('client_id') !== config.clientId) return oauthError(400, 'invalid_client_id', 'client identifier invalid');
  const secret = params.get('client_secret');
  if (grant === 'client_credentials' && secret !== config.clientSecret) return oauthError(400, 'invalid_client', 'invalid client credentials');
  let rotatedTo: string | undefined;
  if (grant === 'refresh_token') {
    if (secret !== null && secret !== config.clientSecret) return oauthError(400, 'invalid_client', 'invalid client credentials');
    const redeemed = refreshTokens.redeem(params.get('refresh_token'));
    if (!redeemed.ok) return oauthError(400, 'invalid_grant', 'expired access/refresh token');
    rotatedTo = redeemed.rotatedTo;
  }

  const session = sessions.issue();
  if (grant === 'refresh_token') refreshTokens.issued(session.token);
  // Whatever host signed in, the org answers from its My Domain (the sandbox's own host).
  const instanceUrl = generic ? myDomainOrigin(ctx) : ctx.origin;
  const id = identityUrl(ctx.origin);
  const issuedAt = String(session.issuedAt);
  // Salesforce signs id + issued_at with the client secret (HMAC-SHA256, base64).
  const signature = createHmac('sha256', config.clientSecret).update(id + issuedAt).digest('base64');
  // Client credentials never hands out a refresh token; the refresh grant does only with rotation on
  // (refresh-tokens.ts), else the client keeps the one it has.
  return json(200, {
    access_token: session.token,
    ...(rotatedTo !== undefined && { refresh_token: rotatedTo }),
    signature,
    scope: 'api',
    instance_url: instanceUrl,
    id,
    token_type: 'Bearer',
    issued_at: issuedAt,
  });
}

/** A request sent to the host configured as login.salesforce.com (`genericLoginHost`), not the org's My Domain. */
function onGenericLoginHost(ctx: Ctx): boolean {
  const generic = ctx.state.config.genericLoginHost;
  return generic !== undefined && new URL(ctx.origin).hostname.toLowerCase() === generic.toLowerCase();
}

/** The origin the sandbox listens on: its My Domain, as a token asked for on the generic host names it. */
function myDomainOrigin(ctx: Ctx): string {
  const origin = new URL(ctx.origin);
  origin.hostname = ctx.state.config.myDomainHost ?? origin.hostname;
  return origin.origin;
}

export function revoke(): Reply {
  return { status: 200 };
}

function identityBody(ctx: Ctx) {
  const base = `${ctx.origin}/services/data/v{version}`;
  return {
    id: identityUrl(ctx.origin),
    asserted_user: true,
    user_id: USER_ID,
    organization_id: ORG_ID,
    username: 'integration@sandbox.example',
    nick_name: 'integration',
    display_name: 'Sandbox Integration User',
    email: 'integration@sandbox.example',
    email_verified: true,
    first_name: 'Sandbox',
    last_name: 'Integration User',
    timezone: 'GMT',
    active: true,
    user_type: 'STANDARD',
    language: 'en_US',
    locale: 'en_US',
    utcOffset: 0,
    last_modified_date: '2026-01-01T00:00:00.000+0000',
    is_app_installed: true,
    urls: {
      enterprise: `${ctx.origin}/services/Soap/c/{version}/${ORG_ID.slice(0, 15)}`,
      partner: `${ctx.origin}/services/Soap/u/{version}/${ORG_ID.slice(0, 15)}`,
      rest: `${base}/`,
      sobjects: `${base}/sobjects/`,
      query: `${base}/query/`,
      limits: `${base}/limits/`,
      profile: `${ctx.origin}/${USER_ID}`,
    },
  };
}

/** The identity URLs' refusal of a token, noted in the auth ledger. */
function badToken(ctx: Ctx, authorization: string | undefined): Reply {
  ctx.state.auth.refused(ctx.state.sessions.refusal(authorization));
  return { status: 403, text: 'Bad_OAuth_Token', contentType: 'text/plain' };
}

/** GET /id/{org}/{user}: the token is in the Authorization header or in `oauth_token`. */
export function identity(ctx: Ctx): Reply {
  const { sessions } = ctx.state;
  const fromQuery = ctx.url.searchParams.get('oauth_token');
  const session = sessions.check(ctx.headers.authorization) ?? (fromQuery ? sessions.checkToken(fromQuery) : undefined);
  if (!session) return badToken(ctx, fromQuery ? `Bearer ${fromQuery}` : ctx.headers.authorization);
  if (ctx.params.org !== ORG_ID && ctx.params.org !== ORG_ID.slice(0, 15)) return json(404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
  return json(200, identityBody(ctx));
}

/** GET /services/oauth2/userinfo (OpenID Connect). */
export function userinfo(ctx: Ctx): Reply {
  const session = ctx.state.sessions.check(ctx.headers.authorization);
  if (!session) return badToken(ctx, ctx.headers.authorization);
  const body = identityBody(ctx);
  return json(200, { sub: body.id, user_id: USER_ID, organization_id: ORG_ID, preferred_username: body.username, name: body.display_name, email: body.email, zoneinfo: 'GMT' });
}
