// The HTTP server: one port for the login host and the instance. Per request: match a route, count
// the call, apply injected faults, check the session and the daily allowance, run the handler,
// write the reply (REST responses carry Sforce-Limit-Info).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loseAnswer } from '../lost-answer.ts';
import { readBody } from '../read-body.ts';
import { notFound, RequestError, sessionInvalid } from './errors.ts';
import type { Ctx, Reply } from './http.ts';
import { requestObject } from './faults.ts';
import { callKind } from './organization.ts';
import { matchRoute } from './router.ts';
import type { SandboxState } from './state.ts';
import { closeAfterControl } from '../control-connections.ts';
import { NODE_MAX_HEADER_SIZE, oversizeReply } from './request-size.ts';

const JSON_TYPE = 'application/json;charset=UTF-8';

function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string>) {
  const headers: Record<string, string> = { ...extraHeaders, ...(reply.headers ?? {}) };
  let payload: string | undefined;
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['Content-Type'] = reply.contentType ?? 'text/plain';
  } else if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = JSON_TYPE;
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

const errorReply = (error: RequestError, headers?: Record<string, string>): Reply => ({ status: error.status, json: error.body(), headers });

/** The token endpoint speaks OAuth's error format, even for injected faults. */
const oauthFault = (error: RequestError): Reply => ({
  status: error.status,
  json: { error: error.status === 429 ? 'rate_limit_exceeded' : 'unknown_error', error_description: error.message },
});

async function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse, fallbackOrigin: string) {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const method = (req.method ?? 'GET').toUpperCase();
  const body = await readBody(req);
  const oversize = oversizeReply(req);
  if (oversize) {
    state.calls.count('uri-too-long');
    return send(res, oversize, {});
  }
  const origin = req.headers.host ? `http://${req.headers.host}` : fallbackOrigin;
  const match = matchRoute(method, url.pathname);

  if (!match) {
    state.calls.count('not-found');
    return send(res, errorReply(notFound()), {});
  }
  if ('allowed' in match) {
    state.calls.count('method-not-allowed');
    const error = new RequestError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${method}' not allowed. Allowed are ${match.allowed.join(',')}`);
    return send(res, errorReply(error), { Allow: match.allowed.join(', ') });
  }

  const { route, params, version } = match;
  const ctx: Ctx = { state, method, url, params, headers: req.headers, body, version, origin, session: undefined };
  if (route.auth === 'control') return send(res, await run(ctx, route.handler), {});

  state.calls.count(callKind(route.kind, url));
  const fault = state.faults.decide(route.kind, () => requestObject(params, body));
  if (fault.hold) await fault.hold;
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  // The request is carried out below; only its answer is lost.
  if (fault.truncate) loseAnswer(res);
  if (fault.error) {
    const retryAfter = fault.retryAfterSeconds ? { 'Retry-After': String(fault.retryAfterSeconds) } : undefined;
    const reply = route.kind === 'token' ? oauthFault(fault.error) : errorReply(fault.error, retryAfter);
    return send(res, reply, route.auth === 'api' ? { 'Sforce-Limit-Info': state.usage.header() } : {});
  }

  if (route.auth === 'open') return send(res, await run(ctx, route.handler), {});

  ctx.session = state.sessions.check(req.headers.authorization);
  if (!ctx.session) {
    state.auth.refused(state.sessions.refusal(req.headers.authorization));
    return send(res, errorReply(sessionInvalid()), {});
  }
  if (!state.usage.consume()) {
    const error = new RequestError(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
    return send(res, errorReply(error), { 'Sforce-Limit-Info': state.usage.header() });
  }
  const reply = await run(ctx, route.handler);
  return send(res, reply, { 'Sforce-Limit-Info': state.usage.header() });
}

async function run(ctx: Ctx, handler: (ctx: Ctx) => Reply | Promise<Reply>): Promise<Reply> {
  try {
    return await handler(ctx);
  } catch (error) {
    if (error instanceof RequestError) return errorReply(error);
    // A sandbox bug: answer like Salesforce's unexpected error, and say what it was.
    return errorReply(new RequestError(500, 'UNKNOWN_EXCEPTION', `An unexpected error occurred in the Salesforce sandbox: ${(error as Error).stack ?? String(error)}`));
  }
}

export async function listen(state: SandboxState, host: string, port: number): Promise<{ server: Server; origin: string }> {
  let origin = '';
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_SIZE }, (req, res) => {
    closeAfterControl(req, res);
    handle(state, req, res, origin).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_TYPE });
      res.end(JSON.stringify([{ message: String(error), errorCode: 'UNKNOWN_EXCEPTION' }]));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  origin = `http://${publicHost}:${address.port}`;
  return { server, origin };
}
