// The token host (§5, A1): POST /oauth2/token, client-credentials grant, form-encoded, answering the
// RFC 6749 shapes. The resource must be exactly the API's base URL.
import http from 'node:http';
import { readBody, sendJson } from './http-util.ts';
import type { SandboxState } from './state.ts';

const TOKEN_KEY = 'POST /oauth2/token';

const oauthError = (status: number, error: string, description: string) => ({ status, body: { error, error_description: description } });

function issueToken(state: SandboxState, request: http.IncomingMessage, raw: Buffer): { status: number; body: unknown } {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return oauthError(400, 'invalid_request', `the token request must be application/x-www-form-urlencoded, got ${type || 'no content-type'}`);
  const form = new URLSearchParams(raw.toString('utf8'));
  const grantType = form.get('grant_type');
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
  if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported; use client_credentials`);
  const clientId = form.get('client_id');
  const clientSecret = form.get('client_secret');
  if (!clientId || !clientSecret) return oauthError(400, 'invalid_request', 'client_id and client_secret are required');
  if (clientId !== state.settings.clientId || clientSecret !== state.settings.clientSecret) return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
  const resource = form.get('resource');
  if (!resource) return oauthError(400, 'invalid_request', 'resource is required and must be the API base URL');
  if (resource !== state.apiUrl) return oauthError(400, 'invalid_target', `resource must be ${state.apiUrl}, got ${resource}`);
  const ttl = state.settings.tokenTtlSeconds;
  return { status: 200, body: { access_token: state.tokens.issue(clientId, ttl, state.nowMs()), token_type: 'Bearer', expires_in: ttl } };
}

export function createAuthServer(state: SandboxState): http.Server {
  return http.createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request);
      const pathname = new URL(request.url ?? '/', 'http://auth.invalid').pathname;
      const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
      if (pathname !== '/oauth2/token') return sendJson(response, 404, { error: 'not_found', error_description: `no endpoint at ${pathname}` });
      if (request.method !== 'POST') return sendJson(response, 405, { error: 'invalid_request', error_description: 'use POST' }, { allow: 'POST' });
      state.calls.record(TOKEN_KEY);
      // Faults reach the token endpoint only through a rule for exactly this key, never through '*'.
      const fault = state.faults.decide(TOKEN_KEY, false);
      if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
      if (fault?.status === 429) return sendJson(response, 429, { error: 'temporarily_unavailable', error_description: 'rate limited (sandbox fault)' }, { 'retry-after': String(fault.retryAfterSeconds) });
      if (fault?.status === 500) return sendJson(response, 500, { error: 'server_error', error_description: 'sandbox fault' });
      const { status, body } = issueToken(state, request, raw);
      sendJson(response, status, body, noStore);
    })().catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: 'server_error', error_description: (error as Error).message });
      else response.destroy();
    });
  });
}
