// For tests: a pass-through HTTP proxy in front of the sandbox that keeps every exchange (method,
// path, status, headers, parsed body), so a test using the real client can check what was on the wire.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Exchange = { method: string; path: string; status: number; headers: Record<string, string>; body: unknown };

export async function startRecordingProxy(target: string): Promise<{ url: string; exchanges: Exchange[]; stop(): Promise<void> }> {
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
        const text = await answer.text();
        const answerHeaders = Object.fromEntries(answer.headers.entries());
        exchanges.push({ method: req.method ?? 'GET', path: req.url ?? '/', status: answer.status, headers: answerHeaders, body: text ? JSON.parse(text) : undefined });
        delete answerHeaders['content-length'];
        delete answerHeaders['content-encoding'];
        delete answerHeaders['transfer-encoding'];
        delete answerHeaders.connection;
        delete answerHeaders['keep-alive'];
        res.writeHead(answer.status, answerHeaders);
        res.end(text);
      } catch (error) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ proxyError: String(error) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
