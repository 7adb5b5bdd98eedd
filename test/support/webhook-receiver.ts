// A local Slack/Teams webhook receiver for tests: every POST is kept (path, body), and a path can be
// told to answer with a script of statuses first (429 with Retry-After, 500 with a body) before 200.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { path: string; body: any; status: number; at: number };
type Answer = { status: number; body?: string; retryAfter?: string };

export async function startWebhookReceiver() {
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const always = new Map<string, Answer>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const answer = scripts.get(path)?.shift() ?? always.get(path) ?? { status: 200, body: 'ok' };
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      received.push({ path, body, status: answer.status, at: Date.now() });
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.retryAfter && { 'retry-after': answer.retryAfter }) });
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** The next answers of `path`, in order; then 200 (or what `always` set). */
    script(path: string, answers: Answer[]) {
      scripts.set(path, [...answers]);
    },
    always(path: string, answer: Answer) {
      always.set(path, answer);
    },
    to(path: string) {
      return received.filter((request) => request.path === path);
    },
    async waitFor(condition: () => boolean, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > until) throw new Error('the webhook receiver did not get what was expected in time');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
