// HubSpot's API limits: a rolling ten-second budget and a daily one for every authenticated call, and
// search's own per-second budget. The day is the account's: it resets at midnight in the time zone set
// on the account (default US/Eastern, HubSpot's own example; /_sandbox/account sets another). Each
// answer carries the X-HubSpot-RateLimit-* headers, without the Daily ones for OAuth access tokens; a
// call over a budget gets HubSpot's 429 body. The daily usage report (account-info.ts) is a snapshot
// HubSpot caches for five minutes.
import { randomUUID } from 'node:crypto';
import { checkTimeZone, localDate, nextLocalMidnight } from './time-zone.ts';

export const TEN_SECONDS = 10_000;
/** How long HubSpot serves the daily usage report from its cache ("cached for 5 minutes"). */
export const USAGE_CACHE_MS = 5 * 60_000;
export const DEFAULT_TIME_ZONE = 'US/Eastern';
export type LimitSettings = { dailyLimit: number; tenSecondlyLimit: number; searchPerSecond: number; timeZone?: string };
export type UsageReport = { usageLimit: number; currentUsage: number; collectedAt: string; fetchStatus: 'SUCCESS' | 'CACHED'; resetsAt: string };
export type Refusal = { status: 429; body: Record<string, unknown> };

function rateLimitBody(message: string, policyName: string): Record<string, unknown> {
  // No category in the documented body, but the spec's Error schema requires one: the spec is the contract.
  return { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName, requestId: randomUUID(), category: 'RATE_LIMITS' };
}

export function createLimits(initial: LimitSettings, now: () => Date) {
  let settings = { ...initial, timeZone: checkTimeZone(initial.timeZone ?? DEFAULT_TIME_ZONE) };
  let window: number[] = []; // times (epoch ms) of calls in the rolling ten seconds
  let searches: number[] = [];
  let day = '';
  let dailyUsed = 0;
  let report: UsageReport | undefined; // the cached daily usage report

  const today = () => localDate(settings.timeZone, now().getTime());
  const rollDay = () => {
    if (day !== today()) {
      day = today();
      dailyUsed = 0;
      report = undefined;
    }
  };
  const prune = (t: number) => {
    window = window.filter((at) => at > t - TEN_SECONDS);
    searches = searches.filter((at) => at > t - 1000);
  };

  return {
    /** Counts one call; a refusal when a budget is spent (a refused call spends nothing). */
    consume(kind: 'api' | 'search'): Refusal | undefined {
      rollDay();
      const t = now().getTime();
      prune(t);
      if (dailyUsed >= settings.dailyLimit) return { status: 429, body: rateLimitBody('You have reached your daily limit.', 'DAILY') };
      if (kind === 'search') {
        if (searches.length >= settings.searchPerSecond) return { status: 429, body: rateLimitBody('You have reached your secondly limit.', 'SECONDLY') };
        searches.push(t);
      } else {
        if (window.length >= settings.tenSecondlyLimit) return { status: 429, body: rateLimitBody('You have reached your ten_secondly_rolling limit.', 'TEN_SECONDLY_ROLLING') };
        window.push(t);
      }
      dailyUsed += 1;
      return undefined;
    },
    /** The rate-limit headers of an answer; `oauth`: the call was made with an OAuth access token, whose answers carry no Daily headers. */
    headers(oauth = false): Record<string, string> {
      rollDay();
      prune(now().getTime());
      return {
        ...(oauth
          ? {}
          : {
              'X-HubSpot-RateLimit-Daily': String(settings.dailyLimit),
              'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, settings.dailyLimit - dailyUsed)),
            }),
        'X-HubSpot-RateLimit-Interval-Milliseconds': String(TEN_SECONDS),
        'X-HubSpot-RateLimit-Max': String(settings.tenSecondlyLimit),
        'X-HubSpot-RateLimit-Remaining': String(Math.max(0, settings.tenSecondlyLimit - window.length)),
        'X-HubSpot-RateLimit-Secondly': String(Math.floor(settings.tenSecondlyLimit / 10)),
        'X-HubSpot-RateLimit-Secondly-Remaining': String(Math.max(0, Math.floor(settings.tenSecondlyLimit / 10) - window.filter((at) => at > now().getTime() - 1000).length)),
      };
    },
    snapshot() {
      rollDay();
      prune(now().getTime());
      return { ...settings, dailyUsed, tenSecondlyUsed: window.length, searchesThisSecond: searches.length, day, resetsAt: nextLocalMidnight(settings.timeZone, now().getTime()).toISOString() };
    },
    /** The account's daily usage as HubSpot reports it: a snapshot, served from its cache for five minutes of the same day. */
    usageReport(): UsageReport {
      rollDay();
      const at = now().getTime();
      if (report && at - Date.parse(report.collectedAt) < USAGE_CACHE_MS) return { ...report, fetchStatus: 'CACHED' };
      report = { usageLimit: settings.dailyLimit, currentUsage: dailyUsed, collectedAt: new Date(at).toISOString(), fetchStatus: 'SUCCESS', resetsAt: nextLocalMidnight(settings.timeZone, at).toISOString() };
      return report;
    },
    timeZone: () => settings.timeZone,
    set(changes: Partial<LimitSettings> & { dailyUsed?: number }) {
      rollDay();
      const { dailyUsed: used, ...rest } = changes;
      if (rest.timeZone !== undefined) checkTimeZone(rest.timeZone);
      settings = { ...settings, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
      if (used !== undefined) dailyUsed = used;
      // A test's change of usage or time zone is seen at once, not after the report's cache expires.
      report = undefined;
      day = today();
    },
    reset(to: LimitSettings) {
      settings = { ...to, timeZone: checkTimeZone(to.timeZone ?? DEFAULT_TIME_ZONE) };
      window = [];
      searches = [];
      dailyUsed = 0;
      report = undefined;
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
