// One Web API request as the handlers see it (also each operation inside a $batch) and the reply
// they give; server.ts and batch.ts write replies out.
import type { SandboxState } from './state.ts';

export type ApiRequest = {
  state: SandboxState;
  method: string;
  /** The path after /api/data/v9.2/, raw (key values are not url-encoded by the client). */
  path: string;
  /** The raw query string without '?'. */
  query: string;
  headers: Record<string, string | undefined>;
  body: string;
  /** `${origin}/api/data/v9.2/` from the request's Host header. */
  base: string;
};
export type Reply = { status: number; json?: unknown; headers?: Record<string, string>; text?: string; contentType?: string };

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({ status, json: body, headers });

/** Query options, values decoded. */
export function queryOptions(query: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    let value = eq < 0 ? '' : part.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch {
      /* left as sent */
    }
    options.set(name, value);
  }
  return options;
}

/** Each preference of a Prefer header, by name. */
export function preferences(prefer: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const item of (prefer ?? '').split(',')) {
    const t = item.trim();
    if (!t) continue;
    const eq = t.indexOf('=');
    map.set((eq < 0 ? t : t.slice(0, eq)).trim().toLowerCase(), eq < 0 ? '' : t.slice(eq + 1).trim().replace(/^"|"$/g, ''));
  }
  return map;
}
