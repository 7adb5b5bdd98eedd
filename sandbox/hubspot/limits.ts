// HubSpot's API limits: a rolling ten-second budget and a daily one (reset at midnight UTC here) for
// every authenticated call, and search's own per-second budget. Each answer carries the
// X-HubSpot-RateLimit-* headers; a call over a budget gets HubSpot's 429 body.
import { randomUUID } from 'node:crypto';

export const TEN_SECONDS = 10_000;
export type LimitSettings = { dailyLimit: number; tenSecondlyLimit: number; searchPerSecond: number };
export type Refusal = { status: 429; body: Record<string, unknown> };

function rateLimitBody(message: string, policyName: string): Record<string, unknown> {
  // No category in the documented body, but the spec's Error schema requires one: the spec is the contract.
  return { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName, requestId: randomUUID(), category: 'RATE_LIMITS' };
}

export function createLimits(initial: LimitSettings, now: () => Date) {
  let settings = { ...initial };
  let window: number[] = []; // times (epoch ms) of calls in the rolling ten seconds
  let searches: number[] = [];
  let day = '';
  let dailyUsed = 0;

  const today = () => now().toISOString().slice(0, 10);
  const rollDay = () => {
    if (day !== today()) {
      day = today();
      dailyUsed = 0;
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
    headers(): Record<string, string> {
      rollDay();
      prune(now().getTime());
      return {
        'X-HubSpot-RateLimit-Daily': String(settings.dailyLimit),
        'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, settings.dailyLimit - dailyUsed)),
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
      return { ...settings, dailyUsed, tenSecondlyUsed: window.length, searchesThisSecond: searches.length, day };
    },
    set(changes: Partial<LimitSettings> & { dailyUsed?: number }) {
      rollDay();
      const { dailyUsed: used, ...rest } = changes;
      settings = { ...settings, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
      if (used !== undefined) dailyUsed = used;
    },
    reset(to: LimitSettings) {
      settings = { ...to };
      window = [];
      searches = [];
      dailyUsed = 0;
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
