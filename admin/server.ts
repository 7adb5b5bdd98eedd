// The worker's admin HTTP server, on its own port and bound to loopback unless told otherwise. Every
// request must carry the admin token (Authorization: Bearer <token>); none is answered without it.
// Serves /metrics in Prometheus' text format: the sync's own metrics and, when the Temporal SDK runtime
// exports its metrics on a local port, those too. Nothing it answers holds a connection's secrets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SyncMetrics } from '../metrics/sync-metrics.ts';
import { tokenMatches } from './token.ts';

export type AdminServerOptions = {
  host: string;
  port: number;
  token: string;
  metrics: SyncMetrics;
  /** The Temporal SDK runtime's Prometheus endpoint (Runtime telemetry), appended to /metrics. */
  temporalMetricsUrl?: string;
};

export type AdminServer = { url: string; stop(): Promise<void> };

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const server = http.createServer((request, response) => {
    void answer(options, request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`The admin server failed: ${error.message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(options: AdminServerOptions, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!tokenMatches(options.token, bearer)) {
    response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="crm-sync"' });
    response.end('The admin server needs its token: Authorization: Bearer <token> (printed at start, and kept in the data directory\'s admin-token)\n');
    return;
  }
  const url = new URL(request.url ?? '/', 'http://admin');
  if (request.method === 'GET' && url.pathname === '/metrics') {
    const own = await options.metrics.registry.metrics();
    const temporal = options.temporalMetricsUrl ? await fetchText(options.temporalMetricsUrl) : '';
    response.writeHead(200, { 'content-type': options.metrics.registry.contentType });
    response.end(temporal ? `${own}\n${temporal}` : own);
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  response.end('Not found: the admin server answers GET /metrics\n');
}

/** The SDK's metrics, or a comment saying why they are missing (a scrape never fails for them). */
async function fetchText(url: string): Promise<string> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return answer.ok ? await answer.text() : `# Temporal SDK metrics unavailable: HTTP ${answer.status}\n`;
  } catch (error) {
    return `# Temporal SDK metrics unavailable: ${(error as Error).message}\n`;
  }
}
