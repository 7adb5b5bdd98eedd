// Small node:http helpers: read a bounded body, send JSON, parse a JSON request body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, HttpError } from './errors.ts';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { code: 'PAYLOAD_TOO_LARGE', message: `request bodies are limited to ${MAX_BODY_BYTES} bytes` });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The JSON body of a POST or PATCH (§1.1: JSON only); an empty body is undefined. */
export function parseJsonBody(request: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpError(415, { code: 'UNSUPPORTED_MEDIA_TYPE', message: `request bodies must be application/json, got ${type || 'no content-type'}` });
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw badRequest(`request body is not valid JSON: ${(error as Error).message}`);
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRaw(response, status, JSON.stringify(body) ?? 'null', headers);
}

export function sendRaw(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  const payload = Buffer.from(text, 'utf8');
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(payload.length), ...headers });
  response.end(payload);
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
