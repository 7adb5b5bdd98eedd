// A form posted to the admin server is read only up to a small limit: a chunked body (no Content-Length
// to refuse up front) that goes past it is answered 413 while it is still being sent, and what came after
// the limit is never kept. Before, `POST /login` buffered 300 MB and the worker's memory grew by ~900 MB.
import http from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLimitedBody } from '../../admin/form-body.ts';
import { startAdminServer, type AdminServer } from '../../admin/server.ts';
import type { ConsoleDeps } from '../../admin/console/routes.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

const TOKEN = 'form-limit-test-token-0123456789abcdef';
const CHUNK = Buffer.alloc(64 * 1024, 'a');
const TOTAL = 32 * 1024 * 1024; // far more than loopback socket buffers can hold, so "answered before sent" means something

let admin: AdminServer;
beforeAll(async () => {
  // The login and sign-out forms never reach the console's reads, so none are given.
  admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics(), console: {} as ConsoleDeps, sessionStorage: 'memory' });
});
afterAll(() => admin?.stop());

type Outcome = { status?: number; body: string; sent: number; closed: boolean };

/** Streams up to TOTAL bytes as a chunked form, stopping as soon as the server answers or hangs up. */
function streamForm(path: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL(path, admin.url);
    const outcome: Outcome = { body: '', sent: 0, closed: false };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      request.destroy();
      resolve(outcome);
    };
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked', ...headers } });
    request.on('response', (response) => {
      outcome.status = response.statusCode;
      response.setEncoding('utf8');
      response.on('data', (text: string) => (outcome.body += text));
      response.on('end', finish);
      response.on('error', finish);
    });
    request.on('error', () => {
      outcome.closed = true;
      finish();
    });
    request.on('close', () => {
      outcome.closed = true;
      // give an answer already under way the chance to be read
      if (outcome.status === undefined) finish();
    });
    const pump = () => {
      while (!done && outcome.status === undefined && outcome.sent < TOTAL) {
        outcome.sent += CHUNK.length;
        if (!request.write(CHUNK)) return void request.once('drain', pump);
      }
      if (!done && outcome.sent >= TOTAL) request.end();
    };
    request.write('token=');
    pump();
  });
}

describe('forms posted to the admin server', () => {
  it('answers 413 to an endless chunked sign-in form before the body has been sent', async () => {
    const outcome = await streamForm('/login');
    expect(outcome.sent).toBeLessThan(TOTAL);
    if (outcome.status !== undefined) {
      expect(outcome.status).toBe(413);
      expect(outcome.body).toContain('The form is too large');
    } else {
      expect(outcome.closed).toBe(true);
    }
  });

  it('answers 413 to an oversized form from a signed-in session too (every form, not only sign-in)', async () => {
    const signedIn = await fetch(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }), redirect: 'manual' });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const outcome = await streamForm('/logout', { cookie });
    expect(outcome.sent).toBeLessThan(TOTAL);
    if (outcome.status !== undefined) expect(outcome.status).toBe(413);
    else expect(outcome.closed).toBe(true);
  });

  it('refuses a declared Content-Length past the limit without reading it', async () => {
    const answer = await fetch(`${admin.url}/login`, { method: 'POST', body: 'token='.padEnd(70 * 1024, 'x'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answer.status).toBe(413);
    expect(await answer.text()).toBe('The form is too large: the admin server takes forms of at most 64 KiB.\n');
  });

  it('still takes a normal sign-in form', async () => {
    const answer = await fetch(`${admin.url}/login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN, next: '/x' }), redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/x');
  });
});

describe('readLimitedBody', () => {
  it('stops pulling chunks once the limit is passed and keeps none of them', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1;
        this.push(Buffer.alloc(1024, 'b'));
      },
    });
    await expect(readLimitedBody(endless as never, 10 * 1024)).rejects.toMatchObject({ status: 413 });
    const afterRefusal = pulled;
    // 11 KiB read, plus what the stream fills its own buffer with ahead of the reader (its high-water mark), no more.
    expect(afterRefusal).toBeLessThanOrEqual(11 + endless.readableHighWaterMark / 1024);
    await new Promise((resolve) => setImmediate(resolve));
    expect(endless.isPaused()).toBe(true);
    expect(pulled).toBe(afterRefusal);
  });

  it('returns a body within the limit as text', async () => {
    expect(await readLimitedBody(Readable.from([Buffer.from('a=1&'), Buffer.from('b=2')]) as never, 10)).toBe('a=1&b=2');
  });
});
