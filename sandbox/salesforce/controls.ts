// Test controls under /_sandbox (no authentication, never counted as API calls): call counts, the
// auth ledger, injected faults, session expiry, the daily limit, token refusals, Bulk job processing, field
// uniqueness, the change driver (on demand and its timer's rate), a full reset and record dumps.
import { applyChanges, CHANGE_KINDS, type ChangeKind } from './change-driver.ts';
import { MAX_CHANGES_PER_SECOND } from './change-timer.ts';
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { findField, findObject } from './schema.ts';
import { resetState } from './state.ts';
import { queryCostSettings } from './query-cost.ts';

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

const MAX_CHANGES = 10_000;
const invalid = (message: string) => new RequestError(400, 'INVALID_BODY', message);

/** The body of POST /changes: `{count?, kinds?}`; no body is one change of the mix. */
function changesRequest(input: Record<string, unknown>): { count: number; kinds?: ChangeKind[] } {
  const count = input.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_CHANGES) throw invalid(`count must be a whole number from 0 to ${MAX_CHANGES}`);
  if (input.kinds === undefined) return { count };
  const kinds = input.kinds;
  if (!Array.isArray(kinds) || kinds.length === 0) throw invalid(`kinds must be a non-empty list of change kinds: ${CHANGE_KINDS.join(', ')}`);
  const unknown = kinds.find((kind) => !(CHANGE_KINDS as readonly unknown[]).includes(kind));
  if (unknown !== undefined) throw invalid(`unknown change kind ${JSON.stringify(unknown)}; the kinds are ${CHANGE_KINDS.join(', ')}`);
  return { count, kinds: kinds as ChangeKind[] };
}

const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { ok: true, ...extra });

export const controls = {
  calls: (ctx: Ctx) => json(200, ctx.state.calls.snapshot()),
  resetCalls(ctx: Ctx) {
    ctx.state.calls.reset();
    return ok();
  },
  /** Token requests by client id and bearer tokens refused, by why (sandbox/auth-ledger.ts). */
  auth: (ctx: Ctx) => json(200, ctx.state.auth.snapshot()),
  listFaults: (ctx: Ctx) => json(200, { faults: ctx.state.faults.list(), injected: ctx.state.faults.injected() }),
  addFault(ctx: Ctx) {
    const input = body(ctx);
    // expireSessions: every session issued so far answers 401 from now on (once, at install time).
    if (input.expireSessions === true) ctx.state.sessions.expireAll();
    const hasRule = ['rate429', 'rate500', 'rate503', 'latencyMs', 'hold'].some((k) => input[k] !== undefined);
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
  getTokenRefusal: (ctx: Ctx) => json(200, { refusal: ctx.state.tokenRefusal.current() ?? null }),
  /** Every token request answers `{error, error_description}` with `status` (default 400) until cleared. */
  setTokenRefusal(ctx: Ctx) {
    try {
      return json(200, { refusal: ctx.state.tokenRefusal.set(body(ctx)) });
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw new RequestError(400, 'INVALID_BODY', (error as Error).message);
    }
  },
  clearTokenRefusal(ctx: Ctx) {
    ctx.state.tokenRefusal.clear();
    return ok();
  },
  /** `{rotate, current, rotations, reuses}`: the org's refresh token (refresh-tokens.ts). */
  refreshTokens: (ctx: Ctx) => json(200, ctx.state.refreshTokens.status()),
  /** `{rotate?: boolean, authorize?: true}`: rotation from now on; `authorize` issues a new token family (a person signing in again). */
  steerRefreshTokens(ctx: Ctx) {
    const input = body(ctx);
    if (input.rotate !== undefined && typeof input.rotate !== 'boolean') throw invalid('rotate must be true or false');
    if (input.authorize !== undefined && input.authorize !== true) throw invalid('authorize must be true (or left out)');
    if (input.rotate !== undefined) ctx.state.refreshTokens.setRotation(input.rotate);
    if (input.authorize) ctx.state.refreshTokens.authorize();
    return json(200, ctx.state.refreshTokens.status());
  },
  jobProcessing: (ctx: Ctx) => json(200, ctx.state.jobs.processing()),
  /** `paused: true` holds closed jobs in UploadComplete until `paused: false`; `failNext` fails the next job with that message. */
  steerJobProcessing(ctx: Ctx) {
    const input = body(ctx);
    if (input.paused !== undefined && typeof input.paused !== 'boolean') throw new RequestError(400, 'INVALID_BODY', 'paused must be true or false');
    if (input.failNext !== undefined && input.failNext !== null && typeof input.failNext !== 'string') {
      throw new RequestError(400, 'INVALID_BODY', "failNext must be the job's errorMessage (text) or null");
    }
    ctx.state.jobs.steer({ paused: input.paused as boolean | undefined, failNext: input.failNext === null ? '' : (input.failNext as string | undefined) });
    return json(200, ctx.state.jobs.processing());
  },
  /** Setup's "Unique" checkbox on a field: `{unique: boolean}`; answers the field as describe now reports it. */
  setField(ctx: Ctx) {
    const object = findObject(ctx.params.object ?? '');
    if (!object) throw new RequestError(404, 'NOT_FOUND', `no object ${ctx.params.object} in the sandbox schema`);
    const field = findField(object, ctx.params.field ?? '');
    if (!field) throw new RequestError(404, 'NOT_FOUND', `no field ${ctx.params.field} on ${object.name} in the sandbox schema`);
    const input = body(ctx);
    if (typeof input.unique !== 'boolean') throw new RequestError(400, 'INVALID_BODY', 'unique must be true or false');
    const table = ctx.state.store.table(object);
    try {
      table.setUnique(field, input.unique);
    } catch (error) {
      throw new RequestError(409, 'DUPLICATE_VALUE', (error as Error).message);
    }
    return json(200, { object: object.name, field: field.name, externalId: field.externalId, unique: table.isUnique(field) });
  },
  /** `{count?, kinds?}` seller changes now, through the write engine; answers `{changes: [...]}`. */
  changes(ctx: Ctx) {
    const { count, kinds } = changesRequest(body(ctx));
    const { store, config, driver } = ctx.state;
    return json(200, { changes: applyChanges({ store, now: config.now, driver }, count, kinds) });
  },
  changesRate: (ctx: Ctx) => json(200, ctx.state.changeTimer.status()),
  /** `{changesPerSecond}`: the timer's rate from now on; 0 stops it. */
  setChangesRate(ctx: Ctx) {
    const rate = body(ctx).changesPerSecond;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > MAX_CHANGES_PER_SECOND) {
      throw invalid(`changesPerSecond must be a number from 0 (stopped) to ${MAX_CHANGES_PER_SECOND}`);
    }
    return json(200, ctx.state.changeTimer.setRate(rate));
  },
  /** The query cost settings and what queries have cost so far (query-cost.ts). */
  queryCost: (ctx: Ctx) => json(200, ctx.state.queryCost.snapshot()),
  /** `{msPerThousandRows?, timeoutMs?, realTimeShare?}` from now on. */
  setQueryCost(ctx: Ctx) {
    try {
      ctx.state.queryCost.set(queryCostSettings(body(ctx), 'query cost'));
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw invalid((error as Error).message);
    }
    return json(200, ctx.state.queryCost.snapshot());
  },
  /** Row locks (row-locks.ts): the settings and how many rows failed with UNABLE_TO_LOCK_ROW, drawn or contended. */
  rowLocks: (ctx: Ctx) => json(200, ctx.state.rowLocks.snapshot()),
  /** `{failureRate?, seed?, contention?, holdMs?, batchSize?}` from now on. */
  setRowLocks(ctx: Ctx) {
    try {
      ctx.state.rowLocks.set(body(ctx));
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw invalid((error as Error).message);
    }
    return json(200, ctx.state.rowLocks.snapshot());
  },
  /** The CSV a Bulk API 2.0 job was given, as uploaded (row order included). */
  jobData(ctx: Ctx): Reply {
    const job = ctx.state.jobs.get(ctx.params.id ?? '');
    if (!job) throw new RequestError(404, 'NOT_FOUND', `no Bulk API job ${ctx.params.id}`);
    return { status: 200, text: job.data ?? '', contentType: 'text/csv' };
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
