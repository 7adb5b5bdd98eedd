// Dataverse's error answers, read from dynamics-web-api's errors: status, Dataverse's code (0x...) and
// its message, kept for the person reading it, and for 429s how long to wait (Retry-After, seconds).
export type DataverseErrorInfo = { status?: number; code?: string; message: string; retryAfterMs?: number };

/** Service-protection codes: requests, execution time and concurrent requests per user (Microsoft's names). */
export const SERVICE_PROTECTION_CODES: Record<string, string> = {
  '0x80072322': 'the number of requests',
  '0x80072321': 'the combined execution time',
  '0x80072326': 'the number of concurrent requests',
};

export function dataverseErrorInfo(error: unknown): DataverseErrorInfo {
  const candidate = (error ?? {}) as { status?: unknown; code?: unknown; message?: unknown; headers?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } };
  const status = typeof candidate.status === 'number' ? candidate.status : undefined;
  const inner = candidate.error && typeof candidate.error === 'object' ? candidate.error : undefined;
  const code = typeof candidate.code === 'string' && candidate.code ? candidate.code : typeof inner?.code === 'string' ? inner.code : undefined;
  const message = typeof candidate.message === 'string' && candidate.message ? candidate.message : typeof inner?.message === 'string' ? inner.message : status ? `Dataverse answered HTTP ${status}` : String(error);
  const retryAfter = header(candidate.headers, 'retry-after');
  const seconds = retryAfter === undefined ? undefined : Number(retryAfter);
  return { status, code, message, ...(seconds !== undefined && Number.isFinite(seconds) && { retryAfterMs: Math.max(0, seconds) * 1000 }) };
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
  return undefined;
}
