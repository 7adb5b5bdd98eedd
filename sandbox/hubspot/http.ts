// The request context handlers receive and the replies they give; server.ts writes them out, always
// as JSON with a Content-Type (the client throws on an answer without one).
import type { IncomingHttpHeaders } from 'node:http';
import { validation } from './errors.ts';
import type { SandboxState } from './state.ts';

export type Ctx = { state: SandboxState; method: string; url: URL; params: Record<string, string>; headers: IncomingHttpHeaders; body: string };
export type Reply = { status: number; json?: unknown; headers?: Record<string, string> };
export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export const json = (status: number, body: unknown): Reply => ({ status, json: body });
export const noContent = (): Reply => ({ status: 204 });

/** The request body as a JSON object, or a 400 saying it is not one. */
export function bodyObject(ctx: Ctx): Record<string, unknown> {
  if (!ctx.body.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(ctx.body);
  } catch {
    throw validation('Invalid input JSON: the request body is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw validation('Invalid input JSON: expected a JSON object');
  return parsed as Record<string, unknown>;
}

/** `properties` from a query string, given as repeated parameters or comma-separated. */
export const queryList = (url: URL, name: string): string[] | undefined => {
  const values = url.searchParams.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  return values.length > 0 ? values : undefined;
};
