// A destination that did not take an alert, in its own words. `permanent`: sending again cannot help
// (a 4xx other than 429, a refused SMTP login); else it is retried with backoff, after `retryAfterMs`
// when the service said how long to wait (Slack's Retry-After on a 429).
export class AlertSendError extends Error {
  override name = 'AlertSendError';
  readonly details: { service: string; status?: number | string; answer?: string; permanent: boolean; retryAfterMs?: number };
  constructor(message: string, details: AlertSendError['details']) {
    super(message);
    this.details = details;
  }
}

/** Retry-After in seconds (or an HTTP date) as milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
