// Every HubSpot call of one connection goes through here: the bearer token (renewed on expiry), the
// rate limits as HubSpot applies them, and retries. The client's own retry and limiter decorators are
// process-global (the last Client constructed wins), so every Client here is built without them and
// this connection's limits live in this closure: two connections in one worker never share settings.
// - Ten-secondly 429 (TEN_SECONDLY_ROLLING) and search's secondly 429: wait and go on.
// - Daily 429 (DAILY): the connection parks until the limit resets: midnight in the account's time
//   zone (HubSpot's rule), from the usage report's `resetsAt` or the account's details.
// - A share of the daily limit is reserved for the account's other integrations: once what is left
//   reaches it, the connection parks instead of calling. What is left comes from the
//   X-HubSpot-RateLimit-Daily-Remaining header, or, where answers carry none (OAuth tokens), from the
//   account's daily usage report, read at most every five minutes and counted down between reads.
// - A park ends when the account's day turns: what was known of the old day is forgotten and the new
//   day's usage read, so the next request is sent (issue #22 item 3).
// - 5xx and network failures: a few retries with backoff. Other 4xx: the caller's to answer.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@hubspot/api-client';
import { CrmBudgetExhaustedError, CrmCredentialsRefusedError, CrmError, type ApiBudget } from '../connector.ts';
import { knownTimeZone as isTimeZone, nextMidnightIn } from './account-day.ts';
import { dailyUsageOf, DETAILS_PATH, timeZoneOf, USAGE_PATHS } from './account-info.ts';
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

export type RateFigures = {
  daily?: number;
  dailyRemaining?: number;
  tenSecondly?: number;
  tenSecondlyRemaining?: number;
  /** When the account's daily limit resets (its next midnight), once known. */
  dailyResetsAt?: Date;
  /** The account's time zone, from its details. */
  timeZone?: string;
};

export type HubSpotTransport = {
  /** Runs one client call under this connection's token, limits and retries. */
  call<T>(what: string, run: (client: Client) => Promise<T>, options?: { search?: boolean; signal?: AbortSignal }): Promise<T>;
  budget(): ApiBudget;
  figures(): RateFigures;
  /** The account's details (GET /account-info/v3/details) under this connection's token and limits; rejects when HubSpot does not give them. */
  accountDetails(signal?: AbortSignal): Promise<unknown>;
};

const MAX_RATE_WAITS = 8;
/** HubSpot's rolling window for the ten-secondly limit. */
const TEN_SECONDS_MS = 10_000;
/** The ten-secondly limit assumed until HubSpot's answers name it (X-HubSpot-RateLimit-Max): its lowest. */
const FIRST_TEN_SECONDLY_LIMIT = 100;
/** The share of the ten-secondly limit this connection sends on its own: the rest is for other processes on the same app. */
const TEN_SECONDLY_SHARE = 0.9;
const MAX_SERVER_RETRIES = 4;
/**
 * Access tokens renewed for one call before it gives up for now. Once is not enough: a call can wait
 * (HubSpot's windows, a 429's Retry-After) long enough for a token renewed at its start to expire.
 */
const MAX_TOKEN_RENEWALS = 3;
/** The usage report is read at most this often (HubSpot caches it five minutes anyway). */
const USAGE_READ_EVERY_MS = 5 * 60_000;
/** Account details that could not be read are asked again after this long. */
const DETAILS_RETRY_MS = 5 * 60_000;
/** A park whose end HubSpot would not tell (usage and details refused) looks again after an hour. */
const UNKNOWN_RESET_RECHECK_MS = 60 * 60_000;
const ACCOUNT_REQUEST_TIMEOUT_MS = 30_000;

export class HubSpotCallError extends CrmError {
  override name = 'HubSpotCallError';
  readonly info: HubSpotErrorInfo;
  constructor(what: string, info: HubSpotErrorInfo, cause: unknown) {
    super(`HubSpot refused ${what}: ${info.message}`, { code: info.category ?? `HTTP_${info.status}`, retryable: false, cause });
    this.info = info;
  }
}

export function createHubSpotTransport(options: TransportOptions): HubSpotTransport {
  const clock = options.clock ?? (() => new Date());
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  const reservedShare = options.reservedShare ?? 0.2;
  const searchGapMs = 1000 / (options.searchPerSecond ?? 4);
  const tokens = createTokenSource(options.baseUrl, options.credentials, clock);
  const figures: RateFigures = {};
  let parkedUntil: Date | undefined;
  /** An answer carried X-HubSpot-RateLimit-Daily*: those headers are the live count (private apps). */
  let dailyFromHeaders = false;
  /** Any request answered: a private app whose answers lack the Daily headers reads the usage report too. */
  let answeredOnce = false;
  let usageReadAt: number | undefined;
  let usagePath: string | undefined;
  let detailsTriedAt: number | undefined;
  /** The account's details as last read (time zone, company currency): one read serves both. */
  let details: unknown;
  let usageReading: Promise<void> | undefined;
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
    const daily = read('x-hubspot-ratelimit-daily');
    const dailyRemaining = read('x-hubspot-ratelimit-daily-remaining');
    if (daily !== undefined && dailyRemaining !== undefined) {
      dailyFromHeaders = true;
      figures.daily = daily;
      figures.dailyRemaining = dailyRemaining;
    }
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

  const parkedError = (until: Date) =>
    new CrmBudgetExhaustedError(`This HubSpot connection is parked until ${until.toISOString()}: the daily API limit ran out or reached the reserved share`, until);

  /** One GET of the account-info API under this connection's token and window; undefined when it could not be had. */
  async function accountGet(path: string, signal?: AbortSignal): Promise<{ status: number; body: unknown } | undefined> {
    const slot = await windowSlot(signal);
    try {
      return await answered(slot, async () => {
        const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}${path}`, {
          headers: { authorization: `Bearer ${await tokens.token()}`, accept: 'application/json' },
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(ACCOUNT_REQUEST_TIMEOUT_MS)]) : AbortSignal.timeout(ACCOUNT_REQUEST_TIMEOUT_MS),
        });
        track(Object.fromEntries(response.headers));
        const text = await response.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        return { status: response.status, body };
      });
    } catch (error) {
      // A refused refresh token is the connection's problem, said once; anything else only leaves the figures unknown.
      if (error instanceof CrmCredentialsRefusedError) throw error;
      return undefined;
    }
  }

  /** Reads the account's daily usage report (the first path that answers is kept); concurrent callers share one read. */
  function readUsage(signal?: AbortSignal): Promise<void> {
    return (usageReading ??= askUsage(signal).finally(() => {
      usageReading = undefined;
    }));
  }

  async function askUsage(signal?: AbortSignal): Promise<void> {
    usageReadAt = clock().getTime();
    for (const path of usagePath ? [usagePath] : USAGE_PATHS) {
      const answer = await accountGet(path, signal);
      if (answer?.status === 404 && !usagePath) continue;
      const usage = answer?.status === 200 ? dailyUsageOf(answer.body) : undefined;
      if (!usage) return;
      usagePath = path;
      // A report of a day that has already ended (served from HubSpot's cache) says nothing of today.
      if (usage.resetsAt && usage.resetsAt <= clock()) return;
      if (usage.resetsAt) figures.dailyResetsAt = usage.resetsAt;
      // The headers are the live count; the report is a snapshot up to five minutes old.
      if (!dailyFromHeaders || figures.dailyRemaining === undefined) {
        figures.daily = usage.limit;
        figures.dailyRemaining = Math.max(0, usage.limit - usage.used);
      }
      return;
    }
  }

  /** The account's time zone, read once from its details (again after a while if they could not be read). */
  async function readTimeZone(signal?: AbortSignal): Promise<void> {
    if (figures.timeZone || (detailsTriedAt !== undefined && !(clock().getTime() - detailsTriedAt >= DETAILS_RETRY_MS))) return;
    detailsTriedAt = clock().getTime();
    const answer = await accountGet(DETAILS_PATH, signal);
    if (answer?.status === 200) details = answer.body;
    const zone = answer?.status === 200 ? timeZoneOf(answer.body) : undefined;
    if (zone && isTimeZone(zone)) figures.timeZone = zone;
    // Refused for good (a scope the app lacks, no such endpoint): not asked again in this process.
    else if (answer && answer.status >= 400 && answer.status < 500 && answer.status !== 429) detailsTriedAt = Infinity;
  }

  /**
   * When the account's daily limit resets: the usage report's `resetsAt` or midnight in the account's
   * time zone, whichever is known (asking HubSpot only when neither is), else look again in an hour.
   * Never a time already past: a park that ended at once would send every call on with the day spent.
   */
  async function resetTime(signal?: AbortSignal): Promise<Date> {
    const known = () => {
      const now = clock();
      if (figures.dailyResetsAt && figures.dailyResetsAt > now) return figures.dailyResetsAt;
      return figures.timeZone ? nextMidnightIn(figures.timeZone, now) : undefined;
    };
    const at = known() ?? (await readUsage(signal), known()) ?? (await readTimeZone(signal), known());
    const now = clock().getTime();
    return at && at.getTime() > now ? at : new Date(now + UNKNOWN_RESET_RECHECK_MS);
  }

  async function admit(signal?: AbortSignal): Promise<void> {
    const now = clock();
    if (parkedUntil && parkedUntil > now) throw parkedError(parkedUntil);
    const parkEnded = parkedUntil !== undefined;
    if (parkEnded || (figures.dailyResetsAt && figures.dailyResetsAt <= now)) {
      // The account's day has turned (or the park's hour of doubt is over): the count was yesterday's.
      parkedUntil = undefined;
      figures.dailyRemaining = undefined;
      figures.dailyResetsAt = undefined;
    }
    const headerless = !dailyFromHeaders && (options.credentials.auth === 'oauth' || answeredOnce);
    if (parkEnded || (headerless && (usageReadAt === undefined || now.getTime() - usageReadAt >= USAGE_READ_EVERY_MS))) await readUsage(signal);
    const { daily, dailyRemaining } = figures;
    if (daily && dailyRemaining !== undefined && dailyRemaining <= daily * reservedShare) {
      const until = await resetTime(signal);
      throw park(
        until,
        `HubSpot API usage is ${daily - dailyRemaining} of ${daily} today; the last ${Math.round(reservedShare * 100)}% is reserved for the account's other integrations, so syncing waits until the daily limit resets at ${until.toISOString()}`,
      );
    }
    // Known once, so a DAILY 429 (when every call is refused) still knows when the account's day ends.
    await readTimeZone(signal);
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
      answeredOnce = true;
      // Without the live header, this connection counts its own calls down from the last usage report.
      if (!dailyFromHeaders && figures.dailyRemaining !== undefined) figures.dailyRemaining = Math.max(0, figures.dailyRemaining - 1);
    }
  }

  async function call<T>(what: string, run: (client: Client) => Promise<T>, callOptions: { search?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    let rateWaits = 0;
    let serverRetries = 0;
    let renewals = 0;
    for (;;) {
      callOptions.signal?.throwIfAborted();
      await admit(callOptions.signal);
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
          if (options.credentials.auth !== 'oauth') {
            throw new CrmCredentialsRefusedError(`HubSpot refused the connection's credentials: ${info.message}`, info.category ?? 'INVALID_AUTHENTICATION', error);
          }
          // OAuth: the refresh grant is what says whether the credentials still work (a revoked app's
          // refresh token is refused there, as a CrmCredentialsRefusedError). A token it has just given
          // that is refused again expired meanwhile: renewed again, then left to a later attempt, never
          // taken for revoked credentials (that would stop the connection until someone re-authorises).
          if (renewals++ < MAX_TOKEN_RENEWALS) {
            await tokens.renew();
            continue;
          }
          throw new CrmError(`HubSpot refused ${MAX_TOKEN_RENEWALS} freshly renewed access tokens for ${what} (${info.message}); the refresh token still works, so this is tried again later`, {
            code: info.category ?? 'EXPIRED_AUTHENTICATION',
            retryable: true,
            retryAfterMs: 10_000,
            cause: error,
          });
        }
        if (info.status === 429) {
          if (info.policyName === 'DAILY') {
            figures.dailyRemaining = 0;
            const until = await resetTime(callOptions.signal);
            throw park(until, `HubSpot's daily API limit is spent (${info.message}); syncing waits until it resets at ${until.toISOString()}, midnight in the account's time zone`);
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
    async accountDetails(signal) {
      // Already read for the account's time zone (the first call of a connection reads it): no second call.
      if (details !== undefined) return details;
      const answer = await accountGet(DETAILS_PATH, signal);
      if (answer?.status === 200) details = answer.body;
      if (answer?.status !== 200) throw new CrmError(`HubSpot did not give the account's details (${answer ? `HTTP ${answer.status}` : 'no answer'})`, { code: 'ACCOUNT_DETAILS_UNREADABLE', retryable: false });
      return answer.body;
    },
    budget: () => ({
      // Nothing is counted of a day that has ended.
      used: figures.daily !== undefined && figures.dailyRemaining !== undefined && !(figures.dailyResetsAt && figures.dailyResetsAt <= clock()) ? figures.daily - figures.dailyRemaining : undefined,
      limit: figures.daily,
      reserved: reservedShare,
      parkedUntil: parkedUntil && parkedUntil > clock() ? parkedUntil : undefined,
    }),
  };
}
