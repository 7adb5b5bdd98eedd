// Test controls under /_sandbox (no authentication, never counted as API calls): call counts,
// injected faults, session expiry, the daily limit, a full reset and record dumps.
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { findObject } from './schema.ts';
import { resetState } from './state.ts';

const body = (ctx: Ctx): Record<string, unknown> => {
  if (!ctx.body.trim()) return {};
  try {
    const parsed = JSON.parse(ctx.body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // fall through to the error below
  }
  throw new RequestError(400, 'INVALID_BODY', 'expected a JSON object');
};

const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { ok: true, ...extra });

export const controls = {
  calls: (ctx: Ctx) => json(200, ctx.state.calls.snapshot()),
  resetCalls(ctx: Ctx) {
    ctx.state.calls.reset();
    return ok();
  },
  listFaults: (ctx: Ctx) => json(200, { faults: ctx.state.faults.list(), injected: ctx.state.faults.injected() }),
  addFault(ctx: Ctx) {
    const input = body(ctx);
    // expireSessions: every session issued so far answers 401 from now on (once, at install time).
    if (input.expireSessions === true) ctx.state.sessions.expireAll();
    const hasRule = ['rate429', 'rate500', 'rate503', 'latencyMs'].some((k) => input[k] !== undefined);
    const faults = hasRule || input.expireSessions !== true ? ctx.state.faults.add(input) : ctx.state.faults.list();
    return json(200, { faults });
  },
  clearFaults(ctx: Ctx) {
    ctx.state.faults.clear();
    return ok();
  },
  expireSessions(ctx: Ctx) {
    ctx.state.sessions.expireAll();
    return ok();
  },
  getLimits: (ctx: Ctx) => json(200, ctx.state.usage.snapshot()),
  setLimits(ctx: Ctx) {
    const input = body(ctx);
    const number = (key: string) => {
      const value = input[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RequestError(400, 'INVALID_BODY', `${key} must be a whole number of at least 0`);
      return value;
    };
    ctx.state.usage.set({ dailyApiLimit: number('dailyApiLimit'), used: number('used') });
    return json(200, ctx.state.usage.snapshot());
  },
  reset(ctx: Ctx) {
    resetState(ctx.state);
    return ok();
  },
  /** Stored records with every field, system fields included; `?includeDeleted=true` adds deleted ones. */
  records(ctx: Ctx) {
    const object = findObject(ctx.params.object ?? '');
    if (!object) throw new RequestError(404, 'NOT_FOUND', `no object ${ctx.params.object} in the sandbox schema`);
    const includeDeleted = ctx.url.searchParams.get('includeDeleted') === 'true';
    return json(200, [...ctx.state.store.table(object).all()].filter((r) => includeDeleted || !r.IsDeleted));
  },
  jobs: (ctx: Ctx) =>
    json(
      200,
      ctx.state.jobs.list().map((j) => ({ id: j.id, object: j.object.name, operation: j.operation, state: j.state, successful: j.successful.length, failed: j.failed.length, errorMessage: j.errorMessage })),
    ),
};
