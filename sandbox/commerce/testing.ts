// A thin plain-fetch helper for tests that drive a sandbox: get a token, call the API, use the
// /_sandbox controls. Deliberately not the project's commerce client, so the sandbox's own tests do
// not depend on the code it is meant to witness.
import type { CommerceSandbox } from './index.ts';

export type ProbeResponse = { status: number; headers: Headers; text: string; json: any };

export type SandboxProbe = {
  /** A fresh token from the auth host (form-encoded client-credentials request). */
  token(): Promise<string>;
  /** Drops the cached token, e.g. after /_sandbox/tokens/expire or /_sandbox/reset. */
  forgetToken(): void;
  /** Calls the API with a cached token; `token: null` sends no Authorization header. */
  api(path: string, options?: { method?: string; body?: unknown; query?: Record<string, string | number>; token?: string | null }): Promise<ProbeResponse>;
  control(method: string, path: string, body?: unknown): Promise<ProbeResponse>;
  records<T = any>(kind: string): Promise<T[]>;
};

async function probeResponse(response: Response): Promise<ProbeResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function probeSandbox(sandbox: CommerceSandbox): SandboxProbe {
  let cached: string | undefined;
  const token = async () => {
    const response = await fetch(`${sandbox.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret, resource: sandbox.apiUrl }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!response.ok || !body.access_token) throw new Error(`token request failed with ${response.status}`);
    return body.access_token;
  };
  return {
    token,
    forgetToken: () => {
      cached = undefined;
    },
    async api(path, options = {}) {
      const url = new URL(sandbox.apiUrl + path);
      for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
      const headers: Record<string, string> = {};
      if (options.token !== null) headers.authorization = `Bearer ${options.token ?? (cached ??= await token())}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url, { method: options.method ?? 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      return probeResponse(response);
    },
    async control(method, path, body) {
      const response = await fetch(`${sandbox.apiUrl}/_sandbox${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return probeResponse(response);
    },
    async records(kind) {
      const response = await fetch(`${sandbox.apiUrl}/_sandbox/records/${kind}`);
      if (!response.ok) throw new Error(`records ${kind}: ${response.status}`);
      return (await response.json()) as any[];
    },
  };
}

/** A clock for the `now` option that tests move by hand. */
export function manualClock(startIso = '2026-02-01T00:00:00.000Z') {
  let ms = Date.parse(startIso);
  return {
    now: () => new Date(ms),
    advance(seconds: number) {
      ms += seconds * 1000;
    },
    iso: () => new Date(ms).toISOString(),
  };
}
