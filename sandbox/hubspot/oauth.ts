// POST /oauth/v1/token (form-encoded): the refresh_token grant gives an access token for 30 minutes.
// Refusals in the OAuth endpoint's own shape: {status: "BAD_...", message, correlationId}.
import { randomUUID } from 'node:crypto';
import { json, type Ctx, type Reply } from './http.ts';

const refuse = (status: string, message: string): Reply => json(400, { status, message, correlationId: randomUUID() });

/** The token endpoint, its answer noted in the auth ledger under the client id the request named. */
export function token(ctx: Ctx): Reply {
  const form = new URLSearchParams(ctx.body);
  const reply = refreshGrant(ctx, form);
  ctx.state.auth.tokenRequest(form.get('client_id'), reply.status === 200);
  return reply;
}

function refreshGrant(ctx: Ctx, form: URLSearchParams): Reply {
  const { credentials } = ctx.state.config;
  const grant = form.get('grant_type');
  if (grant !== 'refresh_token') return refuse('UNSUPPORTED_GRANT_TYPE', `grant_type must be refresh_token, not ${grant ?? '(missing)'}`);
  if (form.get('client_id') !== credentials.clientId) return refuse('BAD_CLIENT_ID', 'missing or unknown client id');
  if (form.get('client_secret') !== credentials.clientSecret) return refuse('BAD_CLIENT_SECRET', 'missing or invalid client secret');
  const issued = ctx.state.tokens.refresh(form.get('refresh_token') ?? '');
  if (!issued) return refuse('BAD_REFRESH_TOKEN', 'missing or unknown refresh token');
  return json(200, issued);
}
