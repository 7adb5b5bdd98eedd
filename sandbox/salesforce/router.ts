// The route table: method + path pattern → endpoint kind (the name calls are counted and faults
// targeted under) + handler. `auth` says how a route is guarded: 'api' routes need a live session
// and use the daily allowance, 'open' routes do neither, 'control' routes are the test controls.
import * as bulk2 from './bulk2.ts';
import * as composite from './composite.ts';
import { controls } from './controls.ts';
import { json, type Handler } from './http.ts';
import * as oauth from './oauth.ts';
import * as organization from './organization.ts';
import * as query from './query.ts';
import * as sobjects from './sobjects.ts';
import * as tooling from './tooling.ts';
import * as toolingQuery from './tooling-query.ts';
import { integrationUserView, wholeOrgView } from './field-access.ts';
import { runInOrgView } from './org-context.ts';
import { setUserLacks } from './user-permissions.ts';

export type Auth = 'api' | 'open' | 'control';
export type Route = { method: string; pattern: RegExp; keys: string[]; kind: string; auth: Auth; handler: Handler };

const API = '/services/data/v(?<version>\\d+\\.\\d+)';

function route(method: string, path: string, kind: string, handler: Handler, auth: Auth = 'api'): Route {
  const keys: string[] = [];
  const source = path.replace(/:(\w+)/g, (_, key: string) => {
    keys.push(key);
    return `(?<${key}>[^/]+)`;
  });
  const prefix = auth === 'api' ? API : '';
  // API calls see the org as the integration user does (field-level security); controls see all of it.
  const inOrg: Handler = (ctx) =>
    runInOrgView(() => (auth === 'api' ? integrationUserView(ctx.state.schema, ctx.state.store) : wholeOrgView(ctx.state.schema)), () => handler(ctx));
  return { method, pattern: new RegExp(`^${prefix}${source}/?$`), keys, kind, auth, handler: inOrg };
}

const versions: Handler = () =>
  json(200, ['58.0', '59.0', '60.0', '61.0', '62.0', '63.0', '64.0'].map((version) => ({ label: `API ${version}`, url: `/services/data/v${version}`, version })));

const resources: Handler = (ctx) => {
  const base = `/services/data/v${ctx.version}`;
  return json(200, {
    sobjects: `${base}/sobjects`,
    query: `${base}/query`,
    queryAll: `${base}/queryAll`,
    composite: `${base}/composite`,
    limits: `${base}/limits`,
    jobs: `${base}/jobs`,
    identity: oauth.identityUrl(ctx.origin),
  });
};

export const ROUTES: Route[] = [
  route('POST', '/services/oauth2/token', 'token', oauth.token, 'open'),
  route('POST', '/services/oauth2/revoke', 'revoke', oauth.revoke, 'open'),
  route('GET', '/services/oauth2/userinfo', 'userinfo', oauth.userinfo, 'open'),
  route('GET', '/id/:org/:user', 'identity', oauth.identity, 'open'),
  route('GET', '/services/data', 'versions', versions, 'open'),

  route('GET', '', 'resources', resources),
  route('GET', '/limits', 'limits', (ctx) => json(200, ctx.state.usage.limitsBody())),
  route('GET', '/sobjects', 'describe-global', sobjects.describeGlobal),
  route('GET', '/sobjects/:type/describe', 'describe', sobjects.describe),
  route('POST', '/tooling/sobjects/:type', 'tooling-create', tooling.create),
  route('GET', '/tooling/query', 'tooling-query', toolingQuery.query),
  route('GET', '/sobjects/:type', 'sobject-info', sobjects.info),
  route('POST', '/sobjects/:type', 'sobject-create', sobjects.create),
  route('GET', '/sobjects/:type/:id', 'sobject-retrieve', sobjects.retrieve),
  route('PATCH', '/sobjects/:type/:id', 'sobject-update', sobjects.update),
  route('DELETE', '/sobjects/:type/:id', 'sobject-delete', sobjects.remove),
  route('GET', '/sobjects/:type/:field/:value', 'sobject-retrieve', sobjects.retrieveByExternalId),
  route('PATCH', '/sobjects/:type/:field/:value', 'sobject-upsert', sobjects.upsert),

  route('POST', '/composite/sobjects', 'composite-create', composite.createMany),
  route('PATCH', '/composite/sobjects', 'composite-update', composite.updateMany),
  route('DELETE', '/composite/sobjects', 'composite-delete', composite.deleteMany),
  route('POST', '/composite/sobjects/:type', 'composite-retrieve', composite.retrieveMany),
  route('GET', '/composite/sobjects/:type', 'composite-retrieve', composite.retrieveMany),
  route('PATCH', '/composite/sobjects/:type/:field', 'composite-upsert', composite.upsertMany),

  route('GET', '/query', 'query', query.query),
  route('GET', '/query/:locator', 'query-more', query.queryMore),
  route('GET', '/queryAll', 'query-all', query.queryAll),
  route('GET', '/queryAll/:locator', 'query-more', query.queryMore),

  route('POST', '/jobs/ingest', 'bulk2-create', bulk2.createJob),
  route('GET', '/jobs/ingest', 'bulk2-list', bulk2.listJobs),
  route('GET', '/jobs/ingest/:id', 'bulk2-poll', bulk2.getJob),
  route('PATCH', '/jobs/ingest/:id', 'bulk2-close', bulk2.changeState),
  route('DELETE', '/jobs/ingest/:id', 'bulk2-delete', bulk2.deleteJob),
  route('PUT', '/jobs/ingest/:id/batches', 'bulk2-upload', bulk2.uploadData),
  route('GET', '/jobs/ingest/:id/successfulResults', 'bulk2-successful-results', bulk2.successfulResults),
  route('GET', '/jobs/ingest/:id/failedResults', 'bulk2-failed-results', bulk2.failedResults),
  route('GET', '/jobs/ingest/:id/unprocessedrecords', 'bulk2-unprocessed-records', bulk2.unprocessedRecords),

  route('GET', '/_sandbox/calls', 'control', controls.calls, 'control'),
  route('POST', '/_sandbox/calls/reset', 'control', controls.resetCalls, 'control'),
  route('GET', '/_sandbox/auth', 'control', controls.auth, 'control'),
  route('GET', '/_sandbox/faults', 'control', controls.listFaults, 'control'),
  route('POST', '/_sandbox/faults', 'control', controls.addFault, 'control'),
  route('DELETE', '/_sandbox/faults', 'control', controls.clearFaults, 'control'),
  route('POST', '/_sandbox/sessions/expire', 'control', controls.expireSessions, 'control'),
  route('GET', '/_sandbox/limits', 'control', controls.getLimits, 'control'),
  route('POST', '/_sandbox/limits', 'control', controls.setLimits, 'control'),
  route('POST', '/_sandbox/reset', 'control', controls.reset, 'control'),
  route('POST', '/_sandbox/user-permissions', 'control', setUserLacks, 'control'),
  route('GET', '/_sandbox/records/:object', 'control', controls.records, 'control'),
  route('GET', '/_sandbox/jobs', 'control', controls.jobs, 'control'),
  route('GET', '/_sandbox/jobs/processing', 'control', controls.jobProcessing, 'control'),
  route('GET', '/_sandbox/jobs/:id/data', 'control', controls.jobData, 'control'),
  route('POST', '/_sandbox/jobs/processing', 'control', controls.steerJobProcessing, 'control'),
  route('GET', '/_sandbox/oauth/refusal', 'control', controls.getTokenRefusal, 'control'),
  route('POST', '/_sandbox/oauth/refusal', 'control', controls.setTokenRefusal, 'control'),
  route('DELETE', '/_sandbox/oauth/refusal', 'control', controls.clearTokenRefusal, 'control'),
  route('GET', '/_sandbox/oauth/refresh-tokens', 'control', controls.refreshTokens, 'control'),
  route('POST', '/_sandbox/oauth/refresh-tokens', 'control', controls.steerRefreshTokens, 'control'),
  route('POST', '/_sandbox/fields/:object/:field', 'control', controls.setField, 'control'),
  route('POST', '/_sandbox/changes', 'control', controls.changes, 'control'),
  route('GET', '/_sandbox/changes/rate', 'control', controls.changesRate, 'control'),
  route('POST', '/_sandbox/changes/rate', 'control', controls.setChangesRate, 'control'),
  route('GET', '/_sandbox/row-locks', 'control', controls.rowLocks, 'control'),
  route('POST', '/_sandbox/row-locks', 'control', controls.setRowLocks, 'control'),
  route('GET', '/_sandbox/query-cost', 'control', controls.queryCost, 'control'),
  route('POST', '/_sandbox/query-cost', 'control', controls.setQueryCost, 'control'),
  route('GET', '/_sandbox/organization', 'control', organization.getOrganization, 'control'),
  route('POST', '/_sandbox/organization', 'control', organization.setOrganization, 'control'),
];

export type Match = { route: Route; params: Record<string, string>; version: string } | { allowed: string[] } | undefined;

const safeDecode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** The route for a request; `{allowed}` when the path exists but not for this method. */
export function matchRoute(method: string, pathname: string): Match {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    if (r.method !== method) {
      allowed.push(r.method);
      continue;
    }
    const groups = m.groups ?? {};
    const params: Record<string, string> = {};
    for (const key of r.keys) params[key] = safeDecode(groups[key]!);
    return { route: r, params, version: groups.version ?? '' };
  }
  return allowed.length > 0 ? { allowed } : undefined;
}
