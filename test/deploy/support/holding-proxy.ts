// An HTTP proxy in front of a sandbox that can hold the requests it receives until told to let them
// through: a test keeps an activity running (its call unanswered) for as long as it needs, e.g. across a
// worker's SIGTERM, without a fixed sleep.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type HoldingProxy = {
  url: string;
  /** From now on, requests wait (unanswered) until release(). */
  hold(): void;
  /** How many requests are waiting now. */
  held(): number;
  /** Lets the waiting requests through and stops holding. */
  release(): void;
  stop(): Promise<void>;
};

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const origin = new URL(target);
  let holding = false;
  let waiting: (() => void)[] = [];
  const server = http.createServer((request, response) => {
    const forward = () => {
      const upstream = http.request({ host: origin.hostname, port: origin.port, method: request.method, path: request.url, headers: { ...request.headers, host: origin.host } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    };
    if (holding) waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: () => void (holding = true),
    held: () => waiting.length,
    release: () => {
      holding = false;
      const queued = waiting;
      waiting = [];
      for (const forward of queued) forward();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
