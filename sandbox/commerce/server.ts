// The API host ({base_url}). Order of work for a request: /_sandbox controls (no token) are answered
// first; anything else is counted under its operation key, then needs a valid bearer token (401),
// then must be a known path (404) with a known method (405); then the organization's quotas count the
// call or refuse it (429, A20; the snapshot read is never counted); then injected faults apply (a gateway's
// plain-text answer or a refused call's 4xx, without running the handler), then the organization must
// exist (404), then the handler runs or the operation answers 501.
import http from 'node:http';
import { handleControl } from './control.ts';
import { HttpError, methodNotAllowed, notFound, notImplemented, unauthenticated } from './errors.ts';
import { HANDLERS } from './handlers/index.ts';
import { parseJsonBody, readBody, sendJson, sendRaw } from './http-util.ts';
import { settleReviews } from './partner-review.ts';
import { quotaRefusal, SNAPSHOT_OPERATION } from './quotas.ts';
import { matchRoute } from './router.ts';
import type { SandboxState } from './state.ts';
import type { FaultDecision } from './faults.ts';
import { closeAfterControl } from '../control-connections.ts';

function authenticate(state: SandboxState, request: http.IncomingMessage): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw unauthenticated('an Authorization: Bearer <access token> header is required');
  const result = state.tokens.check(match[1]!, state.nowMs());
  if ('problem' in result) throw unauthenticated(result.problem);
  return result.clientId;
}

/**
 * Sends a 2xx reply spoiled on purpose: invalid JSON, half the body and then a dropped connection, or a
 * 500 in place of the real answer (the handler ran: what it wrote stays written).
 */
function sendCorrupted(response: http.ServerResponse, status: number, text: string, kind: 'malformed' | 'truncated' | 'error500') {
  if (kind === 'error500') {
    sendJson(response, 500, { code: 'INTERNAL', message: 'internal server error (sandbox fault, after the request was processed)' });
    return;
  }
  if (kind === 'malformed') {
    sendRaw(response, 200, `{"sandboxFault":"malformed",${text}`);
    return;
  }
  const payload = Buffer.from(text, 'utf8');
  // Content-Length announces the whole body; the connection dies after half of it.
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(payload.length) });
  response.write(payload.subarray(0, Math.floor(payload.length / 2)), () => response.destroy());
}

async function handleApi(state: SandboxState, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const method = (request.method ?? 'GET').toUpperCase();
  const url = new URL(request.url ?? '/', 'http://api.invalid');
  const raw = await readBody(request);
  // Partner reviews that ended since the last look are decided before anything is read or written (A13).
  settleReviews(state);

  if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) {
    const body = raw.length > 0 ? parseJsonBody(request, raw) : undefined;
    const reply = handleControl(state, method, url.pathname, body);
    return sendJson(response, reply.status, reply.body);
  }

  const match = matchRoute(method, url.pathname);
  state.calls.record(match.kind === 'operation' ? match.key : match.kind === 'method-not-allowed' ? `${method} ${match.path}` : `${method} (no route)`);
  const clientId = authenticate(state, request);
  if (match.kind === 'not-found') throw notFound(`no operation at ${method} ${url.pathname}`);
  if (match.kind === 'method-not-allowed') throw methodNotAllowed(method, match.path, match.allowed);
  const quotaOrg = match.params.orgId;
  if (quotaOrg !== undefined && match.key !== SNAPSHOT_OPERATION && state.store.organizations.get(quotaOrg)) {
    const refusal = state.quotas.admit(quotaOrg, state.nowMs());
    if (refusal) throw quotaRefusal(quotaOrg, refusal, state.nowMs());
  }

  // Record ids in the path (every parameter but the organization) are what a refusal's `ids` name.
  const ids = Object.entries(match.params).filter(([name]) => name !== 'orgId').map(([, value]) => value);
  const fault: FaultDecision | undefined = state.faults.decide(match.key, true, ids);
  if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  // A gateway in front of the service answers in plain text; the service never sees the call.
  if (fault?.gateway) return sendRaw(response, fault.gateway.status, fault.gateway.body, { 'content-type': `${fault.gateway.contentType}; charset=utf-8` });
  if (fault?.status === 429) {
    throw new HttpError(429, { code: 'RESOURCE_EXHAUSTED', message: `too many requests (sandbox fault); retry after ${fault.retryAfterSeconds} s` }, { 'retry-after': String(fault.retryAfterSeconds) });
  }
  if (fault?.status === 500) throw new HttpError(500, { code: 'INTERNAL', message: 'internal server error (sandbox fault)' });
  // A refused call, before the handler: nothing is written.
  if (fault?.refused) throw new HttpError(fault.refused.status, fault.refused.body);

  const orgId = match.params.orgId;
  if (orgId !== undefined && !state.store.organizations.get(orgId)) throw notFound(`organization ${orgId} not found`);
  const handler = HANDLERS.get(match.key);
  if (!handler) throw notImplemented(match.key);
  const body = method === 'POST' || method === 'PATCH' ? parseJsonBody(request, raw) : undefined;
  if (fault?.lateCommitMs !== undefined) {
    // The answer is lost now (the connection drops); the service still carries the request out, later.
    const params = match.params;
    const query = url.searchParams;
    state.faults.lateCommits.pending += 1;
    setTimeout(() => {
      try {
        settleReviews(state);
        handler({ state, params, query, body, clientId });
      } catch {
        // What the late write would have answered (a refusal) reaches no one.
      } finally {
        state.faults.lateCommits.pending -= 1;
        state.faults.lateCommits.landed += 1;
      }
    }, fault.lateCommitMs);
    response.destroy();
    return;
  }
  const reply = handler({ state, params: match.params, query: url.searchParams, body, clientId });
  const status = reply.status ?? 200;
  const text = reply.text ?? JSON.stringify(reply.body) ?? 'null';
  if (fault?.corrupt && status >= 200 && status < 300) return sendCorrupted(response, status, text, fault.corrupt);
  sendRaw(response, status, text, reply.headers);
}

export function createApiServer(state: SandboxState): http.Server {
  return http.createServer((request, response) => {
    closeAfterControl(request, response);
    handleApi(state, request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      if (error instanceof HttpError) return sendJson(response, error.status, error.body, error.headers);
      sendJson(response, 500, { code: 'INTERNAL', message: `sandbox error: ${(error as Error).message}` });
    });
  });
}
