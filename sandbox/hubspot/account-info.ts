// Account information (issue #22 item 3): GET /account-info/v3/details (the account id and its time
// zone, which sets when the daily limit resets) and the daily API usage, GET
// /account-info/v3/api-usage/daily/private-apps (HubSpot's documented path) and the older
// /account-info/v3/api-usage/daily (the path of HubSpot's published account-info spec): usage, limit
// and `resetsAt`, the account's next midnight; a snapshot HubSpot caches for five minutes. Both are
// ordinary API calls (authorised, counted against the limits). POST /_sandbox/account sets the time zone.
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
    companyCurrency: 'USD',
    additionalCurrencies: [],
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

/** `{timeZone}`: the time zone set on the account (an IANA name such as 'Europe/Paris'). */
export function setAccount(ctx: Ctx): Reply {
  const { timeZone } = bodyObject(ctx);
  if (typeof timeZone !== 'string') throw validation('timeZone must be a time zone name such as "US/Eastern" or "Europe/Paris"');
  try {
    ctx.state.limits.set({ timeZone });
  } catch {
    throw validation(`timeZone ${JSON.stringify(timeZone)} is not a time zone name such as "US/Eastern" or "Europe/Paris"`);
  }
  return json(200, { timeZone: ctx.state.limits.timeZone() });
}
