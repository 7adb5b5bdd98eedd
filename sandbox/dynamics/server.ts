// The HTTP server. Per request: /_sandbox controls (no token, not counted), the token endpoint, or
// the Web API: count the call, apply injected faults, check the bearer token (401 with
// WWW-Authenticate), admit it under the service protection limits, run it, and answer with the
// OData headers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../read-body.ts';
import { handleApi, kindOf } from './api.ts';
import { handleBatch } from './batch.ts';
import { handleControl } from './controls.ts';
import { DataverseError } from './errors.ts';
import type { ApiRequest, Reply } from './http.ts';
import { realServerTime } from './server-time.ts';
import type { SandboxState } from './state.ts';
import { closeAfterControl } from '../control-connections.ts';

const API = '/api/data/v9.2/';
const JSON_TYPE = 'application/json; odata.metadata=minimal';

function send(res: ServerResponse, reply: Reply, extra: Record<string, string> = {}, truncate = false) {
  const headers: Record<string, string> = { ...extra, ...(reply.headers ?? {}) };
  let payload: string | undefined;
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = reply.contentType ?? JSON_TYPE;
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['Content-Type'] = reply.contentType ?? 'text/plain';
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  if (truncate) {
    // The answer is lost on the way: headers and half the body, then the connection drops.
    const half = payload ? payload.slice(0, Math.floor(payload.length / 2)) : '';
    headers['Content-Length'] = String(Buffer.byteLength(payload ?? '') + 1);
    res.writeHead(reply.status, headers);
    res.write(half, () => res.destroy());
    return;
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

const errorReply = (error: DataverseError): Reply => ({ status: error.status, json: error.body(), headers: error.headers });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse) {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q >= 0 ? raw.slice(0, q) : raw;
  const query = q >= 0 ? raw.slice(q + 1) : '';
  const method = (req.method ?? 'GET').toUpperCase();
  const body = await readBody(req);
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;

  if (path.startsWith('/_sandbox/')) return send(res, await handleControl(state, method, path.slice('/_sandbox/'.length), body), {}, false);

  const token = /^\/([^/]+)\/oauth2\/v2\.0\/token\/?$/.exec(path);
  if (token) {
    state.calls.count('POST token');
    const fault = state.faults.decide('POST token');
    if (fault.latencyMs) await sleep(fault.latencyMs);
    if (fault.error) return send(res, { status: fault.error.status, json: { error: 'temporarily_unavailable', error_description: `AADSTS50196: ${fault.error.message}`, error_codes: [50196] }, headers: fault.error.headers, contentType: 'application/json; charset=utf-8' });
    if (method !== 'POST') return send(res, { status: 405, json: { error: 'invalid_request', error_description: 'AADSTS900561: The endpoint only accepts POST requests.', error_codes: [900561] }, contentType: 'application/json; charset=utf-8' });
    const form = new URLSearchParams(body);
    const answer = state.tokens.token(decodeURIComponent(token[1]!), form);
    state.auth.tokenRequest(form.get('client_id'), answer.status === 200);
    return send(res, { status: answer.status, json: answer.json, contentType: 'application/json; charset=utf-8' }, { 'Cache-Control': 'no-store, no-cache' }, fault.truncate);
  }

  if (!path.startsWith(API)) {
    return send(res, { status: 404, json: { error: { code: '0x80060888', message: `Resource not found for the segment '${path}'.` } } });
  }
  const apiPath = path.slice(API.length);
  const kind = kindOf(method, apiPath);
  state.calls.count(kind);
  const base = `http://${headers.host ?? new URL(state.origin).host}${API}`;
  const odata = { 'OData-Version': '4.0', REQ_ID: crypto.randomUUID() };
  const clientId = state.tokens.check(headers.authorization);
  if (!clientId) {
    state.auth.refused(state.tokens.refusal(headers.authorization));
    const c = state.config.credentials;
    return send(res, { status: 401 }, { ...odata, 'WWW-Authenticate': `Bearer authorization_uri=${state.origin}/${c.tenantId}/oauth2/authorize, resource_id=${state.origin}/` });
  }
  let release: (ms: number) => void;
  try {
    release = state.limits.admit(clientId);
  } catch (error) {
    return send(res, errorReply(error as DataverseError), odata);
  }
  const time = state.config.serverTime ?? realServerTime;
  const started = time.now();
  let reply: Reply;
  // Injected latency holds a concurrency slot, as a slow request does.
  const fault = state.faults.decide(kind);
  try {
    if (fault.latencyMs) await sleep(fault.latencyMs);
    if (fault.error) {
      release(time.now() - started);
      release = () => {};
      return send(res, errorReply(fault.error), odata);
    }
    const request: ApiRequest = { state, method, path: apiPath, query, headers, body, base };
    if (apiPath === '$batch' && method === 'POST') {
      const { reply: r, operations, readsOnly } = await handleBatch(request, started);
      state.calls.count('$batch operations', operations);
      if (readsOnly) state.calls.count('$batch of reads only');
      reply = r;
    } else {
      // One operation's server time (limits.ts), then its effect, as inside a $batch.
      const { operationMs } = state.limits.cost();
      if (operationMs > 0) await time.sleep(operationMs);
      reply = handleApi(request);
    }
  } finally {
    release(time.now() - started);
  }
  return send(res, reply, { ...odata, ...state.limits.headers(clientId) }, fault.truncate);
}

export async function listen(state: SandboxState, host: string, port: number): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    closeAfterControl(req, res);
    handle(state, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_TYPE });
      res.end(JSON.stringify({ error: { code: '0x80040216', message: `The Dynamics sandbox failed: ${String((error as Error)?.stack ?? error)}` } }));
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
