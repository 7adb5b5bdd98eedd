// Token renewal ahead of expiry, Retry-After and the per-request timeout, with a scripted fetch.
import { describe, expect, it } from 'vitest';
import { TokenProvider } from '../../commerce/auth.ts';
import { createHttp } from '../../commerce/http.ts';
import { CommerceNetworkError } from '../../commerce/errors.ts';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('TokenProvider', () => {
  it('reuses a token, renews it five minutes before its hour runs out, and sends the contract form fields', async () => {
    let now = 0;
    const forms: URLSearchParams[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      forms.push(new URLSearchParams(String(init!.body)));
      return json(200, { access_token: `t${forms.length}`, token_type: 'Bearer', expires_in: 3600 });
    };
    const tokens = new TokenProvider({ authUrl: 'https://auth2.example', baseUrl: 'https://api.example', clientId: 'id', clientSecret: 'secret', fetch, now: () => now });
    expect(await tokens.token()).toBe('t1');
    now = 54 * 60_000;
    expect(await tokens.token()).toBe('t1');
    now = 55 * 60_000 + 1;
    expect(await tokens.token()).toBe('t2');
    expect(Object.fromEntries(forms[0]!)).toEqual({ grant_type: 'client_credentials', client_id: 'id', client_secret: 'secret', resource: 'https://api.example' });
  });
});

describe('HTTP layer', () => {
  const tokens = () => new TokenProvider({ authUrl: 'https://auth2.example', baseUrl: 'https://api.example', clientId: 'id', clientSecret: 's', fetch: async () => json(200, { access_token: 't', expires_in: 3600 }) });

  it('waits at least as long as Retry-After before trying again', async () => {
    const times: number[] = [];
    const fetch: typeof globalThis.fetch = async () => {
      times.push(Date.now());
      return times.length === 1 ? json(429, { code: 'RESOURCE_EXHAUSTED', message: 'slow down' }, { 'retry-after': '1' }) : json(200, { ok: true });
    };
    const http = createHttp({ baseUrl: 'https://api.example', tokens: tokens(), fetch, minRetryDelayMs: 1, maxRetryDelayMs: 5 });
    expect(await http.request({ operation: 'GET /x', method: 'GET', path: '/x', policy: { kind: 'idempotent' } })).toEqual({ ok: true });
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('gives up on a request that outlives its timeout, with an error naming the operation', async () => {
    const fetch: typeof globalThis.fetch = (_url, init) =>
      new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    const http = createHttp({ baseUrl: 'https://api.example', tokens: tokens(), fetch, timeoutMs: 50, retries: 1, minRetryDelayMs: 1 });
    const failure = (await http.request({ operation: "GET /slow", method: "GET", path: "/slow", policy: { kind: "idempotent" } }).catch((error) => error)) as Error;
    expect(failure).toBeInstanceOf(CommerceNetworkError);
    expect(failure.message).toMatch(/GET \/slow/);
  });
});
