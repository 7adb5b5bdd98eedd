// What the connection reads about the HubSpot account itself (issue #22 item 3): its time zone, which
// sets when the daily API limit resets, and its daily API usage. Neither needs typing in. Pure readers
// of HubSpot's answers; the transport makes the requests.

/** The account's details: `timeZone` among them (HubSpot's default "US/Eastern"). */
export const DETAILS_PATH = '/account-info/v3/details';

/**
 * The daily usage report: HubSpot's reference documents the private-apps path; its published spec has
 * the older path, which a 2026 account was seen answering 404. The first that answers is kept.
 */
export const USAGE_PATHS = ['/account-info/v3/api-usage/daily/private-apps', '/account-info/v3/api-usage/daily'] as const;

export type DailyUsage = { limit: number; used: number; resetsAt?: Date };

/** The day's usage, limit and reset from a usage report, or undefined when it holds none. */
export function dailyUsageOf(body: unknown): DailyUsage | undefined {
  const results = (body as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return undefined;
  const daily = results.find((entry) => /daily/i.test(String((entry as { name?: unknown })?.name ?? ''))) ?? results[0];
  const { usageLimit, currentUsage, resetsAt } = (daily ?? {}) as { usageLimit?: unknown; currentUsage?: unknown; resetsAt?: unknown };
  if (typeof usageLimit !== 'number' || typeof currentUsage !== 'number' || !Number.isFinite(usageLimit) || !Number.isFinite(currentUsage)) return undefined;
  const reset = typeof resetsAt === 'string' ? new Date(resetsAt) : undefined;
  return { limit: usageLimit, used: currentUsage, ...(reset && !Number.isNaN(reset.getTime()) ? { resetsAt: reset } : {}) };
}

/** The account's time zone from its details, or undefined. */
export function timeZoneOf(body: unknown): string | undefined {
  const zone = (body as { timeZone?: unknown } | undefined)?.timeZone;
  return typeof zone === 'string' && zone.trim() ? zone.trim() : undefined;
}

/**
 * The account's company currency from its details (`companyCurrency`, an ISO code): the currency of a
 * deal without deal_currency_code, and of every deal in an account with one currency (docs/crm-wire-behaviour.md).
 */
export function companyCurrencyOf(body: unknown): string | undefined {
  const code = (body as { companyCurrency?: unknown } | undefined)?.companyCurrency;
  return typeof code === 'string' && code.trim() ? code.trim() : undefined;
}
