// Test controls under /_sandbox/ on the API port (no token needed): call counts, faults, token
// expiry, reset, changes on demand (and their mode), the partner review time of referrals, record dumps,
// poison records and each organization's service quotas (A20). See README.md.
import { applyChanges, CHANGE_KINDS, type ChangeKind } from './change-driver.ts';
import { badRequest, HttpError, notFound } from './errors.ts';
import { isPlainObject } from './http-util.ts';
import { parseFaultRule } from './faults.ts';
import { injectPoison, parseInjection } from './poison.ts';
import { parseQuotaRules } from './quotas.ts';
import { acceptRenewal, draftRenewal, lapseRenewal } from './renewals.ts';
import { resetState, type SandboxState } from './state.ts';
import type { Store } from './store.ts';

const RECORD_KINDS: Record<string, (store: Store) => readonly unknown[]> = {
  organizations: (store) => store.organizations.rows,
  products: (store) => store.products.rows,
  buyers: (store) => store.buyers.rows,
  contacts: (store) => store.contacts.rows,
  offers: (store) => store.offers.rows,
  entitlements: (store) => store.entitlements.rows,
  entitlementTerms: (store) => store.entitlementTerms.rows,
  referrals: (store) => store.referrals.rows,
  notificationEvents: (store) => store.events.rows,
};

const MAX_CHANGES = 10_000;
const MAX_REVIEW_SECONDS = 30 * 86_400;

/** The body of POST /_sandbox/changes: `{count?, kinds?}` (no body: one change of the mix). */
function parseChanges(body: unknown): { count: number; kinds?: ChangeKind[] } {
  if (body === undefined) return { count: 1 };
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object {"count": n, "kinds": [...]}');
  const count = body.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_CHANGES) throw badRequest(`count must be an integer from 0 to ${MAX_CHANGES}`);
  if (body.kinds === undefined) return { count };
  const kinds = body.kinds;
  const known = CHANGE_KINDS as readonly unknown[];
  if (!Array.isArray(kinds) || kinds.length === 0) throw badRequest(`kinds must be a non-empty list of change kinds: ${CHANGE_KINDS.join(', ')}`, { field: 'kinds' });
  const unknown = kinds.find((kind) => !known.includes(kind));
  if (unknown !== undefined) throw badRequest(`unknown change kind ${JSON.stringify(unknown)}; one of ${CHANGE_KINDS.join(', ')}`, { field: 'kinds' });
  return { count, kinds: kinds as ChangeKind[] };
}

/** Each organization's quotas with the calls used in the current window, and the calls refused since they were set. */
function quotasOf(state: SandboxState) {
  const now = state.nowMs();
  return Object.fromEntries(state.store.organizations.rows.map(({ id }) => [id, { quotas: state.quotas.quotas(id, now), refused: state.quotas.refused(id) }]));
}

export function handleControl(state: SandboxState, method: string, pathname: string, body: unknown): { status: number; body: unknown } {
  const route = `${method} ${pathname.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /_sandbox':
      return {
        status: 200,
        body: {
          apiUrl: state.apiUrl,
          authUrl: state.authUrl,
          organizationId: state.settings.organizationId,
          seed: state.settings.seed,
          entitlements: state.settings.entitlements,
          termsBumpEntitlement: state.settings.termsBumpEntitlement,
          partnerReviewSeconds: state.settings.partnerReviewSeconds,
          counts: Object.fromEntries(Object.entries(RECORD_KINDS).map(([kind, rows]) => [kind, rows(state.store).length])),
        },
      };
    case 'GET /_sandbox/calls':
      return { status: 200, body: state.calls.snapshot() };
    case 'POST /_sandbox/calls/reset':
      state.calls.reset();
      return { status: 200, body: state.calls.snapshot() };
    case 'GET /_sandbox/late-commits':
      return { status: 200, body: { ...state.faults.lateCommits } };
    case 'GET /_sandbox/faults':
      return { status: 200, body: state.faults.list() };
    case 'POST /_sandbox/faults': {
      const { operation, rule } = parseFaultRule(body);
      state.faults.set(operation, rule);
      return { status: 200, body: state.faults.list() };
    }
    case 'DELETE /_sandbox/faults':
      state.faults.clear();
      return { status: 200, body: state.faults.list() };
    case 'GET /_sandbox/quotas':
      return { status: 200, body: quotasOf(state) };
    case 'POST /_sandbox/quotas': {
      const { orgId, rules } = parseQuotaRules(body, state.settings.organizationId);
      state.quotas.set(orgId, rules);
      return { status: 200, body: quotasOf(state) };
    }
    case 'DELETE /_sandbox/quotas':
      state.quotas.clear();
      return { status: 200, body: quotasOf(state) };
    case 'POST /_sandbox/tokens/expire':
      state.tokens.expireAll();
      return { status: 200, body: { expired: true } };
    case 'POST /_sandbox/reset':
      resetState(state);
      return { status: 200, body: { reset: true } };
    case 'POST /_sandbox/changes/rate': {
      const rate = isPlainObject(body) ? body.changesPerSecond : undefined;
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1000) throw badRequest('changesPerSecond must be a number from 0 (stopped) to 1000');
      state.settings.changesPerSecond = rate;
      return { status: 200, body: { changesPerSecond: rate } };
    }
    case 'POST /_sandbox/changes': {
      const { count, kinds } = parseChanges(body);
      return { status: 200, body: { changes: applyChanges(state, count, kinds) } };
    }
    case 'GET /_sandbox/changes/mode':
      return { status: 200, body: { termsBumpEntitlement: state.settings.termsBumpEntitlement } };
    case 'POST /_sandbox/changes/mode': {
      const value = isPlainObject(body) ? body.termsBumpEntitlement : undefined;
      if (typeof value !== 'boolean') throw badRequest('termsBumpEntitlement must be true (a term change bumps its entitlement) or false (the term changes alone)', { field: 'termsBumpEntitlement' });
      state.settings.termsBumpEntitlement = value;
      return { status: 200, body: { termsBumpEntitlement: value } };
    }
    case 'POST /_sandbox/renewals': {
      // A test's renewal of one entitlement: { entitlementId, action: draft | accept | lapse } (sandbox/commerce/renewals.ts).
      const { entitlementId, action } = isPlainObject(body) ? body : {};
      const entitlement = typeof entitlementId === 'string' ? state.store.entitlements.get(entitlementId) : undefined;
      if (!entitlement) throw notFound(`no entitlement ${JSON.stringify(entitlementId)}`);
      const step = action === 'draft' ? draftRenewal(state, entitlement) : action === 'accept' ? acceptRenewal(state, entitlement) : action === 'lapse' ? lapseRenewal(state, entitlement) : undefined;
      if (!step) throw badRequest(action === 'accept' ? `entitlement ${entitlement.id} has no draft renewal offer to accept` : 'action must be draft, accept or lapse', { field: 'action' });
      return { status: 200, body: step };
    }
    case 'GET /_sandbox/cosell/review':
      return { status: 200, body: { seconds: state.settings.partnerReviewSeconds } };
    case 'POST /_sandbox/cosell/review': {
      const seconds = isPlainObject(body) ? body.seconds : undefined;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_REVIEW_SECONDS) {
        throw badRequest(`seconds must be how long the partner reviews a submitted referral, from 0 (no review) to ${MAX_REVIEW_SECONDS}, got ${JSON.stringify(seconds) ?? 'nothing'}`, { field: 'seconds' });
      }
      // Reviews already running keep their end; the new time applies to referrals submitted from now on.
      state.settings.partnerReviewSeconds = seconds;
      return { status: 200, body: { seconds } };
    }
  }
  const inject = /^POST \/_sandbox\/records\/([^/]+)$/.exec(route);
  if (inject) {
    const { kind, rows } = parseInjection(inject[1]!, body);
    return { status: 200, body: injectPoison(state, kind, rows) };
  }
  const records = /^GET \/_sandbox\/records\/([^/]+)$/.exec(route);
  if (records) {
    const read = RECORD_KINDS[records[1]!];
    if (!read) throw notFound(`unknown record kind ${records[1]}; one of ${Object.keys(RECORD_KINDS).join(', ')}`);
    return { status: 200, body: read(state.store) };
  }
  throw new HttpError(404, `no sandbox control at ${route}`);
}
