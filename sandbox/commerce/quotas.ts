// The organization's service quotas (§8: "usage is bounded by the organization's service quotas"; A20):
// each organization has quotas of API requests per fixed window (a minute, an hour or a day, aligned on
// UTC), counted per organization. A call past a quota in its window is refused with 429
// RESOURCE_EXHAUSTED, a Retry-After until the window ends and a body naming the quota; a refused call is
// not counted (the service did not serve it). Reading the snapshot itself is never counted or refused,
// so a client can always see where it stands. Defaults are generous: only a test that lowers a quota
// (POST /_sandbox/quotas) sees pacing or refusals.
import { badRequest, HttpError } from './errors.ts';
import { isPlainObject } from './http-util.ts';

export const QUOTA_PERIODS = { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 } as const;
export type QuotaPeriod = keyof typeof QUOTA_PERIODS;
export type QuotaRule = { name: string; limit: number; period: QuotaPeriod };

/** The operation that reads the snapshot: never counted against a quota. */
export const SNAPSHOT_OPERATION = 'GET /org/{orgId}/services-and-quotas';

/** Ten million calls an hour: more than any test or benchmark makes, so nothing is paced unless asked. */
export const DEFAULT_QUOTAS: readonly QuotaRule[] = [{ name: 'apiRequests', limit: 10_000_000, period: 'HOUR' }];

/** The services an organization has switched on ([sandbox] all of them; the contract does not list them). */
export const SERVICES = ['offers', 'entitlements', 'products', 'cosell', 'metering', 'notifications'] as const;

type Window = { start: number; used: number };

const windowStart = (rule: QuotaRule, nowMs: number) => Math.floor(nowMs / QUOTA_PERIODS[rule.period]) * QUOTA_PERIODS[rule.period];

export class OrgQuotas {
  #rules = new Map<string, readonly QuotaRule[]>();
  #windows = new Map<string, Map<string, Window>>();
  #refused = new Map<string, number>();

  rulesOf(orgId: string): readonly QuotaRule[] {
    return this.#rules.get(orgId) ?? DEFAULT_QUOTAS;
  }

  /** New quotas for one organization; its counts start again from 0. */
  set(orgId: string, rules: readonly QuotaRule[]): void {
    this.#rules.set(orgId, rules);
    this.#windows.delete(orgId);
    this.#refused.delete(orgId);
  }

  /** Every organization back to the defaults, counts cleared (POST /_sandbox/reset). */
  clear(): void {
    this.#rules.clear();
    this.#windows.clear();
    this.#refused.clear();
  }

  #window(orgId: string, rule: QuotaRule, nowMs: number): Window {
    const windows = this.#windows.get(orgId) ?? this.#windows.set(orgId, new Map()).get(orgId)!;
    const start = windowStart(rule, nowMs);
    const current = windows.get(rule.name);
    if (current && current.start === start) return current;
    const fresh = { start, used: 0 };
    windows.set(rule.name, fresh);
    return fresh;
  }

  /** Counts one call of `orgId`, or refuses it (counting nothing) with the first quota it would exceed. */
  admit(orgId: string, nowMs: number): { rule: QuotaRule; resetsAtMs: number } | undefined {
    const rules = this.rulesOf(orgId);
    const windows = rules.map((rule) => ({ rule, window: this.#window(orgId, rule, nowMs) }));
    const full = windows.find(({ rule, window }) => window.used >= rule.limit);
    if (full) {
      this.#refused.set(orgId, (this.#refused.get(orgId) ?? 0) + 1);
      return { rule: full.rule, resetsAtMs: full.window.start + QUOTA_PERIODS[full.rule.period] };
    }
    for (const { window } of windows) window.used += 1;
    return undefined;
  }

  /** The snapshot's quotas as GET {O}/services-and-quotas answers them: live `used` in the current window. */
  quotas(orgId: string, nowMs: number) {
    return this.rulesOf(orgId).map((rule) => {
      const window = this.#window(orgId, rule, nowMs);
      return { name: rule.name, limit: rule.limit, used: window.used, period: rule.period, resetsAt: new Date(window.start + QUOTA_PERIODS[rule.period]).toISOString() };
    });
  }

  /** Calls refused for a quota since the quotas were set (GET /_sandbox/quotas). */
  refused(orgId: string): number {
    return this.#refused.get(orgId) ?? 0;
  }
}

/** The 429 a call past a quota gets (A20): Retry-After in whole seconds until the window ends, at least 1. */
export function quotaRefusal(orgId: string, refusal: { rule: QuotaRule; resetsAtMs: number }, nowMs: number): HttpError {
  const { rule, resetsAtMs } = refusal;
  const resetsAt = new Date(resetsAtMs).toISOString();
  const seconds = Math.max(1, Math.ceil((resetsAtMs - nowMs) / 1000));
  return new HttpError(
    429,
    {
      code: 'RESOURCE_EXHAUSTED',
      message: `organization ${orgId} has used its ${rule.name} quota (${rule.limit} per ${rule.period.toLowerCase()}) until ${resetsAt}`,
      quota: rule.name,
      limit: rule.limit,
      period: rule.period,
      resetsAt,
    },
    { 'retry-after': String(seconds) },
  );
}

/** The body of POST /_sandbox/quotas: `{organizationId?, quotas: [{name, limit, period}]}`. */
export function parseQuotaRules(body: unknown, defaultOrgId: string): { orgId: string; rules: QuotaRule[] } {
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object {"organizationId"?: "...", "quotas": [{"name", "limit", "period"}]}');
  const orgId = body.organizationId ?? defaultOrgId;
  if (typeof orgId !== 'string' || orgId === '') throw badRequest('organizationId must be a non-empty string', { field: 'organizationId' });
  if (!Array.isArray(body.quotas)) throw badRequest('quotas must be a list of {name, limit, period}', { field: 'quotas' });
  const names = new Set<string>();
  const rules = body.quotas.map((quota, index) => {
    const field = `quotas[${index}]`;
    if (!isPlainObject(quota)) throw badRequest(`${field} must be an object {name, limit, period}`, { field });
    const { name, limit, period } = quota;
    if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name)) throw badRequest(`${field}.name must be a name such as apiRequests, got ${JSON.stringify(name)}`, { field: `${field}.name` });
    if (names.has(name)) throw badRequest(`${field}.name ${name} is named twice`, { field: `${field}.name` });
    names.add(name);
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) throw badRequest(`${field}.limit must be a whole number of calls, 0 or more, got ${JSON.stringify(limit)}`, { field: `${field}.limit` });
    if (typeof period !== 'string' || !(period in QUOTA_PERIODS)) throw badRequest(`${field}.period must be one of ${Object.keys(QUOTA_PERIODS).join(', ')}, got ${JSON.stringify(period)}`, { field: `${field}.period` });
    return { name, limit, period: period as QuotaPeriod };
  });
  return { orgId, rules };
}
