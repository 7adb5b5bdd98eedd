// Dataverse's service protection limits, per user (here: per client id), over a sliding 300-second
// window of the sandbox clock: number of requests (6000), combined execution time (1,200,000 ms) and
// concurrent requests (52). Over a limit: 429 with Retry-After (seconds) and Dataverse's codes. A
// $batch counts as one request [inf]; its execution time is all its operations'.
// Server time: each operation costs `operationMs` of server time (a $batch's operations run one after
// another), and a request may run for `requestTimeoutMs` (Dataverse's 2 minutes) before it is stopped.
// A request's execution time is measured from its admission to its answer, so it holds its concurrency
// slot and spends the user's execution time even when its client stopped waiting long before.
import { DataverseError } from './errors.ts';

export const WINDOW_MS = 300_000;
/**
 * Server time per operation, by default: one reported measure of Dataverse's own pace, 500 creates in one
 * ExecuteMultipleRequest in 14 s on CRM Online (28 ms each; Sonoma Partners, 2013, blog.sonomapartners.com
 * "ExecuteMultipleRequest performance"). A few tens of ms per write is what data-load reports keep finding.
 */
export const DEFAULT_OPERATION_MS = 28;
/** "A Dataverse message operation must complete within 2 minutes" (learn.microsoft.com, analyze-performance). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export type LimitSettings = { requestsPer300s: number; executionMsPer300s: number; concurrency: number; operationMs: number; requestTimeoutMs: number };

export function createLimits(initial: LimitSettings, now: () => Date) {
  let settings = { ...initial };
  const users = new Map<string, { requests: number[]; execution: { at: number; ms: number }[]; inFlight: number }>();
  const user = (id: string) => {
    let u = users.get(id);
    if (!u) users.set(id, (u = { requests: [], execution: [], inFlight: 0 }));
    const t = now().getTime();
    u.requests = u.requests.filter((at) => at > t - WINDOW_MS);
    u.execution = u.execution.filter((e) => e.at > t - WINDOW_MS);
    return u;
  };
  const retryAfter = (oldest: number | undefined) => String(Math.max(1, Math.ceil(((oldest ?? now().getTime()) + WINDOW_MS - now().getTime()) / 1000)));
  return {
    /** Admits one request (returns its release function) or throws the 429. */
    admit(clientId: string): (executionMs: number) => void {
      const u = user(clientId);
      const t = now().getTime();
      if (u.requests.length >= settings.requestsPer300s) {
        throw new DataverseError(429, '0x80072322', `Number of requests exceeded the limit of ${settings.requestsPer300s} over time window of 300 seconds.`, { 'Retry-After': retryAfter(u.requests[0]) });
      }
      const spent = u.execution.reduce((sum, e) => sum + e.ms, 0);
      if (spent >= settings.executionMsPer300s) {
        // Retry-After: until enough of the window's execution time has left it to be under the limit again.
        let freed = spent;
        let until = u.execution[0]?.at;
        for (const entry of u.execution) {
          until = entry.at;
          freed -= entry.ms;
          if (freed < settings.executionMsPer300s) break;
        }
        throw new DataverseError(429, '0x80072321', `Combined execution time of incoming requests exceeded limit of ${settings.executionMsPer300s.toLocaleString('en-US')} milliseconds over time window of 300 seconds. Decrease number of concurrent requests or reduce the duration of requests and try again later.`, { 'Retry-After': retryAfter(until) });
      }
      if (u.inFlight >= settings.concurrency) {
        throw new DataverseError(429, '0x80072326', `Number of concurrent requests exceeded the limit of ${settings.concurrency}.`, { 'Retry-After': '1' });
      }
      u.requests.push(t);
      u.inFlight += 1;
      return (executionMs) => {
        u.inFlight -= 1;
        u.execution.push({ at: now().getTime(), ms: Math.max(1, Math.round(executionMs)) });
      };
    },
    /** Server time per operation and the longest a request may run, as they are now. */
    cost(): { operationMs: number; requestTimeoutMs: number } {
      return { operationMs: settings.operationMs, requestTimeoutMs: settings.requestTimeoutMs };
    },
    headers(clientId: string): Record<string, string> {
      const u = user(clientId);
      return {
        'x-ms-ratelimit-burst-remaining-xrm-requests': String(Math.max(0, settings.requestsPer300s - u.requests.length)),
        'x-ms-ratelimit-time-remaining-xrm-requests': String(Math.max(0, settings.executionMsPer300s - u.execution.reduce((s, e) => s + e.ms, 0))),
      };
    },
    snapshot() {
      return { ...settings, users: Object.fromEntries([...users.keys()].map((id) => { const u = user(id); return [id, { requests: u.requests.length, executionMs: u.execution.reduce((s, e) => s + e.ms, 0), inFlight: u.inFlight }]; })) };
    },
    set(changes: Partial<LimitSettings>) {
      settings = { ...settings, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) };
    },
    reset(to: LimitSettings) {
      settings = { ...to };
      users.clear();
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
