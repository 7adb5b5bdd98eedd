// HubSpot's error answers, read from the client's ApiException: status, category, message, and for
// 429s which limit was hit (policyName). The message is HubSpot's own, kept for the person reading it.
export type HubSpotErrorInfo = {
  status: number;
  category?: string;
  message: string;
  policyName?: string;
  subCategory?: string;
  context?: Record<string, unknown>;
  headers: Record<string, string>;
};

/**
 * The body of the client's ApiException (`error` itself, or a HubSpotCallError's cause), parsed where
 * it came as JSON text; text that is not JSON is `{ message: text }` (a gateway's plain answer).
 */
export function errorBody(error: unknown): unknown {
  const body = (error as { body?: unknown } | undefined)?.body;
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return { message: body };
  }
}

export function hubspotErrorInfo(error: unknown): HubSpotErrorInfo | undefined {
  const candidate = error as { code?: unknown; body?: unknown; headers?: Record<string, string> };
  if (!candidate || typeof candidate.code !== 'number' || candidate.code < 100) return undefined;
  const body = errorBody(candidate);
  const detail = (body ?? {}) as { message?: unknown; category?: unknown; policyName?: unknown; subCategory?: unknown; context?: unknown; status?: unknown };
  return {
    status: candidate.code,
    category: typeof detail.category === 'string' ? detail.category : undefined,
    message: typeof detail.message === 'string' && detail.message ? detail.message : `HubSpot answered HTTP ${candidate.code}`,
    policyName: typeof detail.policyName === 'string' ? detail.policyName : undefined,
    subCategory: typeof detail.subCategory === 'string' ? detail.subCategory : undefined,
    context: detail.context && typeof detail.context === 'object' ? (detail.context as Record<string, unknown>) : undefined,
    headers: candidate.headers ?? {},
  };
}
