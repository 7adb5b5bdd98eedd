// Every HubSpot call of one connection goes through here: the bearer token (renewed on expiry), the
// rate limits as HubSpot applies them, and retries. The client's own retry and limiter decorators are
// process-global (the last Client constructed wins), so every Client here is built without them and
// this connection's limits live in this closure: two connections in one worker never share settings.
// - Ten-secondly 429 (TEN_SECONDLY_ROLLING) and search's secondly 429: wait and go on.
// - Daily 429 (DAILY): the connection parks until the limit resets (midnight UTC).
// - A share of the daily limit is reserved for the account's other integrations: once the
//   X-HubSpot-RateLimit-Daily-Remaining header reaches it, the connection parks instead of calling.
// - 5xx and network failures: a few retries with backoff. Other 4xx: the caller's to answer.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@hubspot/api-client';
import { CrmBudgetExhaustedError, CrmCredentialsRefusedError, CrmError, type ApiBudget } from '../connector.ts';
import { createTokenSource, type HubSpotCredentials } from './auth.ts';
import { hubspotErrorInfo, type HubSpotErrorInfo } from './errors.ts';

export type TransportOptions = {
  baseUrl: string;
  credentials: HubSpotCredentials;
  /** Share of the daily limit left to the account's other integrations (0.2 by default). */
  reservedShare?: number;
  /** Searches a second (HubSpot allows about 5 per account). */
  searchPerSecond?: number;
  clock?: () => Date;
  wait?: (ms: number) => Promise<unknown>;
};

export type RateFigures = { daily?: number; dailyRemaining?: number; tenSecondly?: number; tenSecondlyRemaining?: number };

export type HubSpotTransport = {
  /** Runs one client call under this connection's token, limits and retries. */
  call<T>(what: string, run: (client: Client) => Promise<T>, options?: { search?: boolean; signal?: AbortSignal }): Promise<T>;
  budget(): ApiBudget;
  figures(): RateFigures;
};

const MAX_RATE_WAITS = 8;
/** HubSpot's rolling window for the ten-secondly limit. */
const TEN_SECONDS_MS = 10_000;
/** The ten-secondly limit assumed until HubSpot's answers name it (X-HubSpot-RateLimit-Max): its lowest. */
const FIRST_TEN_SECONDLY_LIMIT = 100;
/** The share of the ten-secondly limit this connection sends on its own: the rest is for other processes on the same app. */
const TEN_SECONDLY_SHARE = 0.9;
const MAX_SERVER_RETRIES = 4;

export class HubSpotCallError extends CrmError {
  override name = 'HubSpotCallError';
  readonly info: HubSpotErrorInfo;
  constructor(what: string, info: HubSpotErrorInfo, cause: unknown) {
    super(`HubSpot refused ${what}: ${info.message}`, { code: info.category ?? `HTTP_${info.status}`, retryable: false, cause });
    this.info = info;
  }
}

export function nextMidnightUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export function createHubSpotTransport(options: TransportOptions): HubSpotTransport {
  const clock = options.clock ?? (() => new Date());
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  const reservedShare = options.reservedShare ?? 0.2;
  const searchGapMs = 1000 / (options.searchPerSecond ?? 4);
  const tokens = createTokenSource(options.baseUrl, options.credentials, clock);
  const figures: RateFigures = {};
  let parkedUntil: Date | undefined;
  let nextSearchAt = 0;
  /**
   * This connection's requests (searches apart) in HubSpot's window: each counts from when it is sent
   * until ten seconds after its answer (HubSpot counted it on arrival, somewhere in between).
   */
  const inWindow = new Set<{ answeredAt: number }>();

  const track = (headers: Record<string, string> | undefined) => {
    if (!headers) return;
    const read = (name: string) => {
      const value = Number(headers[name] ?? headers[name.toLowerCase()]);
      return Number.isFinite(value) && (headers[name] ?? headers[name.toLowerCase()]) !== undefined ? value : undefined;
    };
    figures.daily = read('x-hubspot-ratelimit-daily') ?? figures.daily;
    figures.dailyRemaining = read('x-hubspot-ratelimit-daily-remaining') ?? figures.dailyRemaining;
    figures.tenSecondly = read('x-hubspot-ratelimit-max') ?? figures.tenSecondly;
    figures.tenSecondlyRemaining = read('x-hubspot-ratelimit-remaining') ?? figures.tenSecondlyRemaining;
  };

  const client = new Client({
    basePath: options.baseUrl,
    // Replaced on every request by the middleware below (an OAuth token changes while the client lives).
    accessToken: 'set-per-request',
    numberOfApiCallRetries: 0,
    middleware: [
      {
        pre: async (context: any) => {
          context.setHeaderParam('Authorization', `Bearer ${await tokens.token()}`);
          return context;
        },
        post: (context: any) => {
          track(context.headers);
          return context;
        },
      },
    ],
  });

  const park = (until: Date, why: string) => {
    parkedUntil = until;
    return new CrmBudgetExhaustedError(why, until);
  };

  function admit(): void {
    if (parkedUntil && parkedUntil > clock()) throw new CrmBudgetExhaustedError(`This HubSpot connection is parked until ${parkedUntil.toISOString()}: the daily API limit ran out or reached the reserved share`, parkedUntil);
    parkedUntil = undefined;
    const { daily, dailyRemaining } = figures;
    if (daily && dailyRemaining !== undefined && dailyRemaining <= daily * reservedShare) {
      throw park(
        nextMidnightUtc(clock()),
        `HubSpot API usage is ${daily - dailyRemaining} of ${daily} today; the last ${Math.round(reservedShare * 100)}% is reserved for the account's other integrations, so syncing waits until the daily limit resets at ${nextMidnightUtc(clock()).toISOString()}`,
      );
    }
  }

  async function searchSlot(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, nextSearchAt);
    nextSearchAt = at + searchGapMs;
    if (at > now) await wait(at - now);
  }

  /**
   * Waits for room in HubSpot's ten-secondly window rather than be refused: a request HubSpot answers
   * with 429 is a call spent for nothing (a backfill at full speed met dozens of them per 100,000
   * records). Searches have their own secondly limit (searchSlot). Returns the request's place, to be
   * stamped with the time of its answer.
   */
  async function windowSlot(signal?: AbortSignal): Promise<{ answeredAt: number }> {
    for (;;) {
      const now = Date.now();
      for (const entry of inWindow) if (entry.answeredAt <= now - TEN_SECONDS_MS) inWindow.delete(entry);
      const room = Math.max(1, Math.floor((figures.tenSecondly ?? FIRST_TEN_SECONDLY_LIMIT) * TEN_SECONDLY_SHARE));
      if (inWindow.size < room) {
        const entry = { answeredAt: Infinity };
        inWindow.add(entry);
        return entry;
      }
      signal?.throwIfAborted();
      // The first place to free: ten seconds after the oldest answer (or soon, when all are in flight).
      const oldest = Math.min(...[...inWindow].map((entry) => entry.answeredAt));
      await sleep(Number.isFinite(oldest) ? Math.max(1, oldest + TEN_SECONDS_MS - now + 1) : 50, undefined, signal ? { signal } : undefined);
    }
  }

  async function answered<T>(slot: { answeredAt: number } | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      if (slot) slot.answeredAt = Date.now();
    }
  }

  async function call<T>(what: string, run: (client: Client) => Promise<T>, callOptions: { search?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    let rateWaits = 0;
    let serverRetries = 0;
    let renewed = false;
    for (;;) {
      callOptions.signal?.throwIfAborted();
      admit();
      if (callOptions.search) await searchSlot();
      const slot = callOptions.search ? undefined : await windowSlot(callOptions.signal);
      try {
        return await answered(slot, () => run(client));
      } catch (error) {
        if (error instanceof CrmError) throw error; // a token refusal from the middleware
        const info = hubspotErrorInfo(error);
        if (!info) {
          if (serverRetries++ < MAX_SERVER_RETRIES) {
            await wait(250 * 2 ** serverRetries);
            continue;
          }
          throw new CrmError(`HubSpot could not be reached for ${what}: ${(error as Error).message}`, { code: 'NETWORK', retryable: true, cause: error });
        }
        track(info.headers);
        if (info.status === 401) {
          if (!renewed && options.credentials.auth === 'oauth') {
            renewed = true;
            await tokens.renew();
            continue;
          }
          throw new CrmCredentialsRefusedError(`HubSpot refused the connection's credentials: ${info.message}`, info.category ?? 'INVALID_AUTHENTICATION', error);
        }
        if (info.status === 429) {
          if (info.policyName === 'DAILY') {
            const until = nextMidnightUtc(clock());
            throw park(until, `HubSpot's daily API limit is spent (${info.message}); syncing waits until it resets at ${until.toISOString()}`);
          }
          if (rateWaits++ < MAX_RATE_WAITS) {
            const retryAfter = Number(info.headers['retry-after']);
            await wait(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : Math.min(10_000, 500 * 2 ** rateWaits));
            continue;
          }
          throw new CrmError(`HubSpot kept answering 429 to ${what}: ${info.message}`, { code: 'RATE_LIMITS', retryable: true, retryAfterMs: 10_000, cause: error });
        }
        if (info.status >= 500) {
          if (serverRetries++ < MAX_SERVER_RETRIES) {
            await wait(250 * 2 ** serverRetries);
            continue;
          }
          throw new CrmError(`HubSpot failed ${what}: HTTP ${info.status} ${info.message}`, { code: `HTTP_${info.status}`, retryable: true, cause: error });
        }
        throw new HubSpotCallError(what, info, error);
      }
    }
  }

  return {
    call,
    figures: () => ({ ...figures }),
    budget: () => ({
      used: figures.daily !== undefined && figures.dailyRemaining !== undefined ? figures.daily - figures.dailyRemaining : undefined,
      limit: figures.daily,
      reserved: reservedShare,
      parkedUntil: parkedUntil && parkedUntil > clock() ? parkedUntil : undefined,
    }),
  };
}
