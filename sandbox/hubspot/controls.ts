// Test controls under /_sandbox (no token, never counted nor rate limited): call counts, the auth
// ledger, injected faults, token expiry and revocation, limits, a full reset and record dumps.
import { notFound, validation } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { MAX_SEARCH_LAG_MS, searchIndexOf } from './search.ts';
import { resetState } from './state.ts';
import { checkProperties, updateRecord } from './writes.ts';

const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { ok: true, ...extra });
const LIMIT_KEYS = ['dailyLimit', 'tenSecondlyLimit', 'searchPerSecond', 'dailyUsed'] as const;

export const controls = {
  calls: (ctx: Ctx) => json(200, ctx.state.calls.snapshot()),
  resetCalls(ctx: Ctx) {
    ctx.state.calls.reset();
    return ok();
  },
  /** Token requests by client id and bearer tokens refused, by why (sandbox/auth-ledger.ts). */
  auth: (ctx: Ctx) => json(200, ctx.state.auth.snapshot()),
  faults: (ctx: Ctx) => json(200, { faults: ctx.state.faults.list(), injected: ctx.state.faults.injected() }),
  addFault: (ctx: Ctx) => json(200, { faults: ctx.state.faults.add(bodyObject(ctx)) }),
  clearFaults(ctx: Ctx) {
    ctx.state.faults.clear();
    return ok();
  },
  /** `{next?: n}`: besides every token issued so far, the next n issued are expired from the start. */
  expireTokens(ctx: Ctx) {
    const { next = 0 } = bodyObject(ctx);
    if (!Number.isInteger(next) || (next as number) < 0) throw validation('next must be a whole number of tokens, 0 or more');
    return ok({ expired: ctx.state.tokens.expireAll(next as number) });
  },
  /** `{app?: 'oauth' | 'private-app'}` (absent: both): an admin uninstalls the OAuth app or expires the private app's token now. */
  revokeTokens(ctx: Ctx) {
    const { app } = bodyObject(ctx);
    if (app !== undefined && app !== 'oauth' && app !== 'private-app') throw validation('app must be "oauth" (the OAuth app is uninstalled) or "private-app" (its token is expired now); without it, both');
    return ok({ revoked: ctx.state.tokens.revoke(app === undefined ? ['oauth', 'private-app'] : [app]) });
  },
  restoreTokens(ctx: Ctx) {
    ctx.state.tokens.restore();
    return ok();
  },
  limits: (ctx: Ctx) => json(200, { ...ctx.state.limits.snapshot(), searchLagMs: searchIndexOf(ctx.state.store).lag() }),
  /**
   * The budgets, and `searchLagMs`: how far HubSpot's search index trails writes (search.ts; 0, the
   * default, is no lag). It sits with searchPerSecond as a trait of the account's search service.
   */
  setLimits(ctx: Ctx) {
    const { searchLagMs, ...input } = bodyObject(ctx);
    const unknown = Object.keys(input).find((k) => !(LIMIT_KEYS as readonly string[]).includes(k));
    if (unknown) throw validation(`unknown limit ${unknown}; the limits are ${LIMIT_KEYS.join(', ')} and searchLagMs`);
    for (const key of LIMIT_KEYS) {
      const value = input[key];
      if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) throw validation(`${key} must be a whole number of at least 0`);
    }
    if (searchLagMs !== undefined && (typeof searchLagMs !== 'number' || !Number.isInteger(searchLagMs) || searchLagMs < 0 || searchLagMs > MAX_SEARCH_LAG_MS)) {
      throw validation(`searchLagMs must be a whole number of milliseconds from 0 to ${MAX_SEARCH_LAG_MS}`);
    }
    ctx.state.limits.set(input as Record<string, number>);
    if (searchLagMs !== undefined) searchIndexOf(ctx.state.store).setLag(searchLagMs);
    return json(200, { ...ctx.state.limits.snapshot(), searchLagMs: searchIndexOf(ctx.state.store).lag() });
  },
  reset(ctx: Ctx) {
    resetState(ctx.state);
    return ok();
  },
  /** Stored records with every property; `?includeArchived=true` adds archived ones. */
  records(ctx: Ctx) {
    const type = ctx.state.store.internalType(ctx.params.objectType ?? '');
    if (!type) throw notFound(`no object type ${ctx.params.objectType} in the sandbox`);
    const includeArchived = ctx.url.searchParams.get('includeArchived') === 'true';
    return json(200, ctx.state.store.records(type.name).filter((r) => includeArchived || !r.archived));
  },
  associations: (ctx: Ctx) => json(200, ctx.state.store.allAssociations()),
  scopes: (ctx: Ctx) => json(200, { withheld: [...ctx.state.withheldScopes].sort() }),
  /** `{withheld: [scope, ...]}`: the token lacks these scopes from now on (scopes.ts says which calls need which). */
  setScopes(ctx: Ctx) {
    const { withheld } = bodyObject(ctx);
    if (!Array.isArray(withheld) || !withheld.every((scope) => typeof scope === 'string')) throw validation('withheld must be a list of scopes, e.g. ["crm.schemas.custom.read"]');
    ctx.state.withheldScopes = new Set(withheld as string[]);
    return json(200, { withheld: [...ctx.state.withheldScopes].sort() });
  },
  /**
   * The change driver for deals: what salespeople do in HubSpot's app. `{ids?, count?, properties}` sets
   * `properties` (checked like any write: known properties, typed values, unique values) on the given
   * deals, or on the `count` (default 1) oldest live deals; each write moves hs_lastmodifieddate and is
   * journalled. Answers the deals as changed.
   */
  changeDeals(ctx: Ctx) {
    const input = bodyObject(ctx);
    const { store } = ctx.state;
    const properties = input.properties;
    if (!properties || typeof properties !== 'object' || Array.isArray(properties) || Object.keys(properties).length === 0) throw validation('properties must name at least one deal property to set, e.g. {"dealstage": "closedwon"}');
    const ids = input.ids === undefined ? undefined : Array.isArray(input.ids) && input.ids.every((id) => typeof id === 'string') ? (input.ids as string[]) : undefined;
    if (input.ids !== undefined && !ids) throw validation('ids must be a list of deal ids (text)');
    const count = input.count ?? 1;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) throw validation('count must be a whole number of at least 1');
    const live = store.records('deals').filter((deal) => !deal.archived);
    const chosen = ids ? ids.map((id) => live.find((deal) => deal.id === id) ?? (() => { throw notFound(`No deal with id ${id}`); })()) : live.slice(0, count);
    const values = checkProperties(store, 'deals', properties);
    const changed = chosen.map((deal) => updateRecord(store, 'deals', deal, values, ctx.state.config.now()));
    return json(200, { changed: changed.map((deal) => ({ id: deal.id, properties: deal.properties })) });
  },
};
