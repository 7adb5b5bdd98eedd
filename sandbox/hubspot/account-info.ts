// Account information (issue #22 item 3): GET /account-info/v3/details (the account id and its time
// zone, which sets when the daily limit resets) and the daily API usage, GET
// /account-info/v3/api-usage/daily/private-apps (HubSpot's documented path) and the older
// /account-info/v3/api-usage/daily (the path of HubSpot's published account-info spec): usage, limit
// and `resetsAt`, the account's next midnight; a snapshot HubSpot caches for five minutes. Both are
// ordinary API calls (authorised, counted against the limits). The details' `companyCurrency` is the
// account's company currency, the currency of a deal without deal_currency_code (issue #25 section 5).
// POST /_sandbox/account sets the time zone and the company currency.
import { validation } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { offsetText, utcOffsetMs } from './time-zone.ts';

export function details(ctx: Ctx): Reply {
  const timeZone = ctx.state.limits.timeZone();
  const offset = utcOffsetMs(timeZone, ctx.state.config.now().getTime());
  return json(200, {
    portalId: Number(ctx.state.config.portalId ?? 4242),
    accountType: 'STANDARD',
    timeZone,
    companyCurrency: ctx.state.account.companyCurrency,
    additionalCurrencies: ctx.state.config.additionalCurrencies ?? [],
    utcOffset: offsetText(offset),
    utcOffsetMilliseconds: offset,
    uiDomain: 'app.hubspot.com',
    dataHostingLocation: 'na1',
  });
}

/** The daily usage report under the name each path gives it. */
export const dailyUsage =
  (name: string) =>
  (ctx: Ctx): Reply =>
    json(200, { results: [{ name, ...ctx.state.limits.usageReport() }] });

const ISO_CODE = /^[A-Z]{3}$/;

/** The company currency a sandbox starts with: an ISO 4217 code, USD when not given. */
export function companyCurrencySetting(code: string | undefined): string {
  if (code === undefined) return 'USD';
  if (!ISO_CODE.test(code)) throw new Error(`HubSpot sandbox: companyCurrency must be an ISO 4217 code (three capital letters), not ${JSON.stringify(code)}`);
  return code;
}

/**
 * A multi-currency account's currencies, the company currency first; none for an account with one
 * currency (its deals, line items and products have no per-currency properties: schema.ts).
 */
export function accountCurrencies(config: { companyCurrency?: string; additionalCurrencies?: string[] }): string[] {
  const additional = config.additionalCurrencies ?? [];
  for (const code of additional) {
    if (!ISO_CODE.test(code)) throw new Error(`HubSpot sandbox: additionalCurrencies must be ISO 4217 codes (three capital letters), not ${JSON.stringify(code)}`);
  }
  if (additional.length === 0) return [];
  const company = companyCurrencySetting(config.companyCurrency);
  return [company, ...additional.filter((code) => code !== company)];
}

/** `{timeZone?, companyCurrency?}`: the time zone (an IANA name such as 'Europe/Paris') and company currency (an ISO code such as 'EUR') set on the account. */
export function setAccount(ctx: Ctx): Reply {
  const { timeZone, companyCurrency } = bodyObject(ctx);
  if (timeZone === undefined && companyCurrency === undefined) throw validation('give timeZone (a time zone name such as "US/Eastern") or companyCurrency (an ISO currency code such as "EUR")');
  if (companyCurrency !== undefined && (typeof companyCurrency !== 'string' || !ISO_CODE.test(companyCurrency))) throw validation(`companyCurrency ${JSON.stringify(companyCurrency)} is not an ISO currency code such as "EUR"`);
  if (timeZone !== undefined) {
    if (typeof timeZone !== 'string') throw validation('timeZone must be a time zone name such as "US/Eastern" or "Europe/Paris"');
    try {
      ctx.state.limits.set({ timeZone });
    } catch {
      throw validation(`timeZone ${JSON.stringify(timeZone)} is not a time zone name such as "US/Eastern" or "Europe/Paris"`);
    }
  }
  if (companyCurrency !== undefined) ctx.state.account.companyCurrency = companyCurrency as string;
  return json(200, { timeZone: ctx.state.limits.timeZone(), companyCurrency: ctx.state.account.companyCurrency });
}
