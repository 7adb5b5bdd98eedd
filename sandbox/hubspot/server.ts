// The HTTP server. Per request: match a route, count the call, apply injected faults, check the
// token, spend the rate-limit budgets, run the handler, and answer JSON with a Content-Type (the
// client throws without one) and the X-HubSpot-RateLimit-* headers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loseAnswer } from '../lost-answer.ts';
import { readBody } from '../read-body.ts';
import { HubSpotError } from './errors.ts';
import type { Ctx, Handler, Reply } from './http.ts';
import { matchRoute } from './router.ts';
import { checkScopes } from './scopes.ts';
import type { SandboxState } from './state.ts';
import { closeAfterControl } from '../control-connections.ts';

const JSON_TYPE = 'application/json;charset=utf-8';

function send(res: ServerResponse, reply: Reply, headers: Record<string, string>) {
  const all: Record<string, string> = { ...headers, ...(reply.headers ?? {}) };
  let payload: string | undefined;
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    all['Content-Type'] = JSON_TYPE;
    all['Content-Length'] = String(Buffer.byteLength(payload));
  }
  res.writeHead(reply.status, all);
  res.end(payload);
}

const errorReply = (error: HubSpotError): Reply => ({ status: error.status, json: error.body() });

async function run(ctx: Ctx, handler: Handler): Promise<Reply> {
  try {
    return await handler(ctx);
  } catch (error) {
    if (error instanceof HubSpotError) return errorReply(error);
    // A sandbox bug: answer as HubSpot's internal error, saying what it was.
    return errorReply(new HubSpotError(500, 'INTERNAL_ERROR', `The HubSpot sandbox failed: ${(error as Error).stack ?? String(error)}`));
  }
}

async function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const method = (req.method ?? 'GET').toUpperCase();
  const body = await readBody(req);
  const match = matchRoute(method, url.pathname, (raw) => state.store.objectType(raw)?.name);
  if (!match) {
    state.calls.count('not-found');
    return send(res, errorReply(new HubSpotError(404, 'OBJECT_NOT_FOUND', `No endpoint ${method} ${url.pathname}`)), {});
  }
  if ('allowed' in match) {
    state.calls.count('method-not-allowed');
    return send(res, errorReply(new HubSpotError(405, 'VALIDATION_ERROR', `HTTP method ${method} is not allowed on ${url.pathname}; allowed: ${match.allowed.join(', ')}`)), {
      Allow: match.allowed.join(', '),
    });
  }
  const { route, params, kind } = match;
  const ctx: Ctx = { state, method, url, params, headers: req.headers, body };
  if (route.auth === 'control') return send(res, await run(ctx, route.handler), {});

  state.calls.count(kind);
  const limited = route.auth === 'api' || route.auth === 'search';
  // HubSpot's answers to OAuth access tokens carry no Daily rate-limit headers.
  const oauth = state.tokens.isOAuth(req.headers.authorization);
  const fault = state.faults.decide(kind);
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  // The request is carried out below; only its answer is lost.
  if (fault.truncate) loseAnswer(res);
  if (fault.reply) return send(res, { status: fault.reply.status, json: fault.reply.body }, limited ? state.limits.headers(oauth) : {});
  if (!limited) return send(res, await run(ctx, route.handler), {});

  try {
    state.tokens.check(req.headers.authorization);
  } catch (error) {
    state.auth.refused(state.tokens.refusal(req.headers.authorization));
    return send(res, errorReply(error as HubSpotError), state.limits.headers(oauth));
  }
  const refusal = state.limits.consume(route.auth === 'search' ? 'search' : 'api');
  if (refusal) return send(res, { status: 429, json: refusal.body }, state.limits.headers(oauth));
  try {
    checkScopes(state, method, url.pathname, params);
  } catch (error) {
    return send(res, errorReply(error as HubSpotError), state.limits.headers(oauth));
  }
  const reply = await run(ctx, route.handler);
  return send(res, reply, state.limits.headers(oauth));
}

export async function listen(state: SandboxState, host: string, port: number): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    closeAfterControl(req, res);
    handle(state, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_TYPE });
      res.end(JSON.stringify({ status: 'error', message: String(error), correlationId: '00000000-0000-0000-0000-000000000000', category: 'INTERNAL_ERROR' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { server, origin: `http://${publicHost}:${address.port}` };
}
