// API calls, errors and rate-limit waits per target, counted from Node's HTTP diagnostics channels: the
// clients (jsforce, @hubspot/api-client, dynamics-web-api, the commerce client) are used unmodified, and
// every request they make passes through undici (fetch) or node:http, which both publish there. A call is
// attributed to its target by its path, which each API shapes its own way.
import diagnostics_channel from 'node:diagnostics_channel';
import client from 'prom-client';

export type ApiTarget = 'commerce' | 'salesforce' | 'hubspot' | 'dynamics';

/** Which API a request went to, from its path; undefined for anything else (test controls, metrics). */
export function apiTarget(path: string, host = ''): ApiTarget | undefined {
  const pathname = path.split('?')[0]!;
  if (pathname.startsWith('/_sandbox')) return undefined;
  if (/\/services\//.test(pathname)) return 'salesforce';
  if (/\/api\/data\/v\d/.test(pathname) || /\/oauth2\/v2\.0\/token$/.test(pathname) || host.startsWith('login.microsoftonline')) return 'dynamics';
  if (/^\/(crm|oauth\/v1|account-info|integrations|properties|files)\//.test(pathname)) return 'hubspot';
  if (/(^|\/)org\/[^/]+/.test(pathname) || /\/oauth2\/token$/.test(pathname)) return 'commerce';
  return undefined;
}

function statusClass(status: number): string {
  if (status === 429) return '429';
  return `${Math.floor(status / 100)}xx`;
}

/** Retry-After in seconds (a number or an HTTP date), or undefined. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

export type ApiCallMetrics = { stop(): void };

/** Counts every API call the process makes into `registry` until stopped. */
export function observeApiCalls(registry: client.Registry, prefix = 'crm_sync_'): ApiCallMetrics {
  const calls = new client.Counter({ name: `${prefix}api_calls_total`, help: 'Calls to the commerce API and the CRMs, by target and outcome (2xx, 4xx, 429, 5xx, error: no answer)', labelNames: ['target', 'outcome'] as const, registers: [registry] });
  const seconds = new client.Histogram({ name: `${prefix}api_call_duration_seconds`, help: 'How long calls took until their answer\'s headers, by target', labelNames: ['target'] as const, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry] });
  const waits = new client.Counter({ name: `${prefix}api_rate_limit_waits_total`, help: 'Answers that told the sync to wait (429), by target', labelNames: ['target'] as const, registers: [registry] });
  const waited = new client.Counter({ name: `${prefix}api_rate_limit_wait_seconds_total`, help: 'Seconds the rate-limited answers asked the sync to wait (Retry-After; 1 when absent), by target', labelNames: ['target'] as const, registers: [registry] });

  const started = new WeakMap<object, { target: ApiTarget; at: number }>();
  const answered = (request: object, status: number, retryAfter: string | undefined) => {
    const call = started.get(request);
    if (!call) return;
    started.delete(request);
    calls.inc({ target: call.target, outcome: statusClass(status) });
    seconds.observe({ target: call.target }, (performance.now() - call.at) / 1000);
    if (status === 429) {
      waits.inc({ target: call.target });
      waited.inc({ target: call.target }, retryAfterSeconds(retryAfter) ?? 1);
    }
  };
  const failed = (request: object) => {
    const call = started.get(request);
    if (!call) return;
    started.delete(request);
    calls.inc({ target: call.target, outcome: 'error' });
  };

  // fetch (undici): the raw headers come as alternating name/value buffers.
  const undiciCreate = ({ request }: { request: { origin: string; path: string } }) => {
    const target = apiTarget(request.path, new URL(request.origin).host);
    if (target) started.set(request, { target, at: performance.now() });
  };
  const undiciHeaders = ({ request, response }: { request: object; response: { statusCode: number; headers: Buffer[] } }) => {
    let retryAfter: string | undefined;
    for (let index = 0; index < response.headers.length; index += 2) {
      if (response.headers[index]!.toString().toLowerCase() === 'retry-after') retryAfter = response.headers[index + 1]!.toString();
    }
    answered(request, response.statusCode, retryAfter);
  };
  const undiciError = ({ request }: { request: object }) => failed(request);
  // node:http (node-fetch and the like).
  const httpStart = ({ request }: { request: { path: string; host: string } }) => {
    const target = apiTarget(request.path, request.host);
    if (target) started.set(request, { target, at: performance.now() });
  };
  const httpFinish = ({ request, response }: { request: object; response: { statusCode?: number; headers: Record<string, string | string[] | undefined> } }) =>
    answered(request, response.statusCode ?? 0, String(response.headers['retry-after'] ?? '') || undefined);
  const httpError = ({ request }: { request: object }) => failed(request);

  const subscriptions: [string, (message: any) => void][] = [
    ['undici:request:create', undiciCreate],
    ['undici:request:headers', undiciHeaders],
    ['undici:request:error', undiciError],
    ['http.client.request.start', httpStart],
    ['http.client.response.finish', httpFinish],
    ['http.client.request.error', httpError],
  ];
  for (const [name, listener] of subscriptions) diagnostics_channel.subscribe(name, listener);
  return {
    stop() {
      for (const [name, listener] of subscriptions) diagnostics_channel.unsubscribe(name, listener);
    },
  };
}
