// The Dataverse sandbox's server time (issue #22 item 7), driven with dynamics-web-api and plain HTTP:
// each operation costs operationMs and a $batch's operations run one after another; a request whose
// client went away goes on to its end; a request past its time limit stops with 0x80044151, keeping what
// it already did; and the user's combined execution time over 300 s answers 429 0x80072321 with Retry-After.
import { DynamicsWebApi } from 'dynamics-web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_MS, startDynamicsSandbox, type DynamicsSandbox, type ServerTime } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let sb: DynamicsSandbox;
let token: string;
const api = () => new DynamicsWebApi({ serverUrl: sb.orgUrl, dataApi: { version: '9.2' }, onTokenRefresh: async () => token });
const rows = async (prefix: string, on = sb): Promise<any[]> => ((await control(on, 'GET', '/records/accounts')) as any[]).filter((row) => String(row.name).startsWith(prefix));

/** A $batch of `count` account creates over plain HTTP (so a test can stop waiting for it). */
function batchOf(prefix: string, count: number): { body: string; contentType: string } {
  const boundary = `batch_${prefix}`;
  const parts = Array.from({ length: count }, (_, i) => `--${boundary}\nContent-Type: application/http\nContent-Transfer-Encoding: binary\n\nPOST /api/data/v9.2/accounts HTTP/1.1\nContent-Type: application/json\n\n${JSON.stringify({ name: `${prefix} ${i}` })}\n`);
  return { body: `${parts.join('')}--${boundary}--\n`, contentType: `multipart/mixed; boundary=${boundary}` };
}
const postBatch = (prefix: string, count: number, signal?: AbortSignal, to = { sandbox: sb, token }) => {
  const { body, contentType } = batchOf(prefix, count);
  return fetch(`${to.sandbox.orgUrl}api/data/v9.2/$batch`, { method: 'POST', headers: { authorization: `Bearer ${to.token}`, 'content-type': contentType, prefer: 'odata.continue-on-error' }, body, signal });
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never: ${what}`);
}

async function tokenFor(sandbox: DynamicsSandbox): Promise<string> {
  const answer = await fetch(sandbox.tokenUrl, { method: 'POST', body: new URLSearchParams({ client_id: sandbox.clientId, client_secret: sandbox.clientSecret, grant_type: 'client_credentials', scope: `${new URL(sandbox.orgUrl).origin}/.default` }) });
  return ((await answer.json()) as { access_token: string }).access_token;
}
/** A sandbox of its own whose server time runs on `serverTime`, and a token for it. */
async function sandboxOnClock(options: Parameters<typeof startDynamicsSandbox>[0] & { serverTime: ServerTime }) {
  const sandbox = await startDynamicsSandbox(options);
  return { sandbox, token: await tokenFor(sandbox) };
}
/** Server time that passes only when the test moves it on: operations finish as `advance` lets them. */
function manualClock() {
  let at = 0;
  let sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => at,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ until: at + ms, wake })),
    advance(ms: number) {
      at += ms;
      const due = sleepers.filter((sleeper) => sleeper.until <= at);
      sleepers = sleepers.filter((sleeper) => sleeper.until > at);
      for (const sleeper of due) sleeper.wake();
    },
    /** Operations waiting for server time to pass. */
    waiting: async () => sleepers.length,
  };
}
/** Server time that passes the moment it is waited for: no real time, whatever the machine's load. */
function instantClock(): ServerTime {
  let at = 0;
  return { now: () => at, sleep: async (ms) => { at += ms; } };
}
const inFlight = async (sandbox: DynamicsSandbox) => Object.values((await control(sandbox, 'GET', '/limits')).users as Record<string, { inFlight: number }>)[0]?.inFlight;

beforeAll(async () => {
  sb = await startDynamicsSandbox({ operationMs: 0 });
  token = await tokenFor(sb);
});
afterAll(() => sb?.stop());
beforeEach(async () => {
  await control(sb, 'POST', '/limits', { operationMs: 0, requestTimeoutMs: 120_000, executionMsPer300s: 1_200_000 });
});

describe('server time per operation', () => {
  it('defaults to a few tens of ms an operation, and can be set through the limits control', async () => {
    const fresh = await startDynamicsSandbox();
    try {
      expect(DEFAULT_OPERATION_MS).toBeGreaterThanOrEqual(10);
      expect(DEFAULT_OPERATION_MS).toBeLessThanOrEqual(100);
      expect(await control(fresh, 'GET', '/limits')).toMatchObject({ operationMs: DEFAULT_OPERATION_MS, requestTimeoutMs: 120_000 });
    } finally {
      await fresh.stop();
    }
    expect(await control(sb, 'POST', '/limits', { operationMs: 7 })).toMatchObject({ operationMs: 7 });
  });

  it('a request costs one operation, a $batch all of its operations one after another, counted as execution time', async () => {
    await control(sb, 'POST', '/limits', { operationMs: 60 });
    let started = performance.now();
    await api().retrieveMultiple({ collection: 'accounts', top: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    started = performance.now();
    const answer = await postBatch('Timed', 10);
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(590);
    expect(await rows('Timed')).toHaveLength(10);
    const limits = await control(sb, 'GET', '/limits');
    const spent = Object.values(limits.users as Record<string, { executionMs: number }>)[0]!.executionMs;
    expect(spent).toBeGreaterThanOrEqual(600 + 55);
  });

  it('a $batch whose client stopped waiting goes on to its end', async () => {
    // Server time moves only when the test says, so the client stops waiting with exactly one create done
    // however busy the machine is; the other seven can only land after that.
    const clock = manualClock();
    const own = await sandboxOnClock({ operationMs: 100, serverTime: clock });
    try {
      const gone = new AbortController();
      const sent = postBatch('Abandoned', 8, gone.signal, own).catch((error: Error) => error);
      await until(clock.waiting, (waiting) => waiting === 1, 'the first create under way');
      clock.advance(100);
      await until(() => rows('Abandoned', own.sandbox), (found) => found.length === 1, 'the first create');
      gone.abort();
      expect(await sent).toBeInstanceOf(Error);
      // The request still holds its slot and has done one create of eight.
      expect(await rows('Abandoned', own.sandbox)).toHaveLength(1);
      expect(await inFlight(own.sandbox)).toBe(1);
      clock.advance(700);
      await until(() => rows('Abandoned', own.sandbox), (found) => found.length === 8, 'all eight creates, though nobody waits for them');
      await until(() => inFlight(own.sandbox), (n) => n === 0, 'the request to end');
    } finally {
      await own.sandbox.stop();
    }
  });

  it("a $batch past the request's time limit stops there: what ran stays, the rest never runs, the answer is 0x80044151", async () => {
    // On a clock that only the operations move: 100 ms each within 500 ms is exactly five, on any machine.
    const own = await sandboxOnClock({ operationMs: 100, requestTimeoutMs: 500, serverTime: instantClock() });
    try {
      const answer = await postBatch('Limited', 10, undefined, own);
      expect(answer.status).toBe(500);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('0x80044151');
      expect(body.error.message).toMatch(/SQL timeout expired/);
      expect((await rows('Limited', own.sandbox)).map((row) => row.name).sort()).toEqual(['Limited 0', 'Limited 1', 'Limited 2', 'Limited 3', 'Limited 4']);
      expect(await inFlight(own.sandbox)).toBe(0);
      // Another request after the answer: the other five never ran.
      expect((await postBatch('Later', 1, undefined, own)).status).toBe(200);
      expect(await rows('Limited', own.sandbox)).toHaveLength(5);
    } finally {
      await own.sandbox.stop();
    }
  });

  it("past the user's combined execution time over 300 s, requests answer 429 0x80072321 with Retry-After", async () => {
    await control(sb, 'POST', '/reset');
    await control(sb, 'POST', '/limits', { operationMs: 100, executionMsPer300s: 1000 });
    expect((await postBatch('Budget', 12)).status).toBe(200);
    const refused = await postBatch('Budget more', 1);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('0x80072321');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(250);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(await rows('Budget more')).toHaveLength(0);
  });
});
