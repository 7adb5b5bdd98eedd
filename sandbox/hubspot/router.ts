// Every endpoint the sandbox answers: method, path pattern, how it is authorised and limited
// ('api': token + ten-secondly/daily budgets; 'search': token + search's per-second and the daily
// budget; 'open': the OAuth token endpoint; 'control': /_sandbox), and the kind it is counted under.
import * as accountInfo from './account-info.ts';
import * as associations from './associations.ts';
import { controls } from './controls.ts';
import type { Handler } from './http.ts';
import * as objects from './objects.ts';
import { token } from './oauth.ts';
import { getOwner, listOwners } from './owners.ts';
import * as properties from './properties.ts';
import * as customObjects from './custom-objects.ts';
import { search } from './search.ts';

export type Auth = 'api' | 'search' | 'open' | 'control';
export type Route = { method: string; path: string; auth: Auth; kind: string; handler: Handler };

const route = (method: string, path: string, auth: Auth, kind: string, handler: Handler): Route => ({ method, path, auth, kind, handler });

export const ROUTES: readonly Route[] = [
  route('POST', '/oauth/v1/token', 'open', 'oauth.token', token),
  route('GET', '/account-info/v3/details', 'api', 'account.details', accountInfo.details),
  route('GET', '/account-info/v3/api-usage/daily/private-apps', 'api', 'account.usage', accountInfo.dailyUsage('private-apps-api-calls-daily')),
  route('GET', '/account-info/v3/api-usage/daily', 'api', 'account.usage', accountInfo.dailyUsage('api-calls-daily')),
  route('POST', '/crm/v3/objects/{objectType}/search', 'search', '{objectType}.search', search),
  route('POST', '/crm/v3/objects/{objectType}/batch/read', 'api', '{objectType}.batch.read', objects.batchRead),
  route('POST', '/crm/v3/objects/{objectType}/batch/create', 'api', '{objectType}.batch.create', objects.batchCreate),
  route('POST', '/crm/v3/objects/{objectType}/batch/update', 'api', '{objectType}.batch.update', objects.batchUpdate),
  route('POST', '/crm/v3/objects/{objectType}/batch/upsert', 'api', '{objectType}.batch.upsert', objects.batchUpsert),
  route('GET', '/crm/v3/objects/{objectType}', 'api', '{objectType}.list', objects.list),
  route('POST', '/crm/v3/objects/{objectType}', 'api', '{objectType}.create', objects.createOne),
  route('GET', '/crm/v3/objects/{objectType}/{id}', 'api', '{objectType}.get', objects.getOne),
  route('PATCH', '/crm/v3/objects/{objectType}/{id}', 'api', '{objectType}.update', objects.updateOne),
  route('DELETE', '/crm/v3/objects/{objectType}/{id}', 'api', '{objectType}.archive', objects.archiveOne),
  route('GET', '/crm/v3/owners', 'api', 'owners.read', listOwners),
  route('GET', '/crm/v3/owners/{ownerId}', 'api', 'owners.read', getOwner),
  route('GET', '/crm-object-schemas/v3/schemas', 'api', 'schemas.read', customObjects.listSchemas),
  route('POST', '/crm-object-schemas/v3/schemas', 'api', 'schemas.create', customObjects.createSchema),
  route('GET', '/crm-object-schemas/v3/schemas/{objectType}', 'api', 'schemas.read', customObjects.getSchema),
  route('GET', '/crm/v3/properties/{objectType}/groups', 'api', 'groups.read', properties.readGroups),
  route('POST', '/crm/v3/properties/{objectType}/groups', 'api', 'groups.create', properties.createGroup),
  route('GET', '/crm/v3/properties/{objectType}/groups/{groupName}', 'api', 'groups.read', properties.readGroup),
  route('GET', '/crm/v3/properties/{objectType}', 'api', 'properties.read', properties.readAll),
  route('POST', '/crm/v3/properties/{objectType}', 'api', 'properties.create', properties.create),
  route('GET', '/crm/v3/properties/{objectType}/{name}', 'api', 'properties.read', properties.readOne),
  route('GET', '/crm/v3/pipelines/{objectType}', 'api', 'pipelines.read', properties.readPipelines),
  route('POST', '/crm/v3/pipelines/{objectType}', 'api', 'pipelines.create', properties.createPipeline),
  route('GET', '/crm/v3/pipelines/{objectType}/{pipelineId}', 'api', 'pipelines.read', properties.readPipeline),
  route('PUT', '/crm/v4/objects/{fromType}/{fromId}/associations/default/{toType}/{toId}', 'api', 'associations.default', associations.putDefault),
  route('POST', '/crm/v4/associations/{fromType}/{toType}/batch/create', 'api', 'associations.batch.create', associations.batchCreate),
  route('POST', '/crm/v4/associations/{fromType}/{toType}/batch/associate/default', 'api', 'associations.batch.default', associations.batchDefault),
  route('POST', '/crm/v4/associations/{fromType}/{toType}/batch/read', 'api', 'associations.batch.read', associations.batchRead),
  route('GET', '/crm/v4/objects/{fromType}/{fromId}/associations/{toType}', 'api', 'associations.read', associations.readOfRecord),
  route('GET', '/_sandbox/calls', 'control', 'control', controls.calls),
  route('DELETE', '/_sandbox/calls', 'control', 'control', controls.resetCalls),
  route('GET', '/_sandbox/auth', 'control', 'control', controls.auth),
  route('GET', '/_sandbox/faults', 'control', 'control', controls.faults),
  route('POST', '/_sandbox/faults', 'control', 'control', controls.addFault),
  route('DELETE', '/_sandbox/faults', 'control', 'control', controls.clearFaults),
  route('POST', '/_sandbox/tokens/expire', 'control', 'control', controls.expireTokens),
  route('POST', '/_sandbox/tokens/revoke', 'control', 'control', controls.revokeTokens),
  route('POST', '/_sandbox/tokens/restore', 'control', 'control', controls.restoreTokens),
  route('POST', '/_sandbox/account', 'control', 'control', accountInfo.setAccount),
  route('GET', '/_sandbox/limits', 'control', 'control', controls.limits),
  route('POST', '/_sandbox/limits', 'control', 'control', controls.setLimits),
  route('POST', '/_sandbox/reset', 'control', 'control', controls.reset),
  route('GET', '/_sandbox/records/{objectType}', 'control', 'control', controls.records),
  route('GET', '/_sandbox/associations', 'control', 'control', controls.associations),
  route('GET', '/_sandbox/association-limits', 'control', 'control', associations.associationLimits.read),
  route('POST', '/_sandbox/association-limits', 'control', 'control', associations.associationLimits.set),
  route('POST', '/_sandbox/deals/change', 'control', 'control', controls.changeDeals),
  route('GET', '/_sandbox/scopes', 'control', 'control', controls.scopes),
  route('POST', '/_sandbox/scopes', 'control', 'control', controls.setScopes),
];

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const segment = want[i]!;
    if (segment.startsWith('{')) {
      if (!have[i]) return undefined;
      params[segment.slice(1, -1)] = decodeURIComponent(have[i]!);
    } else if (segment !== have[i]) return undefined;
  }
  return params;
}

/**
 * The route for a request (first match wins), its path parameters and the kind it is counted under
 * (`nameOf` gives the sandbox's name of the object type a path names, so a custom object is counted
 * under its name whichever identifier the path used).
 */
export function matchRoute(
  method: string,
  path: string,
  nameOf: (objectType: string) => string | undefined = () => undefined,
): { route: Route; params: Record<string, string>; kind: string } | { allowed: string[] } | undefined {
  const allowed: string[] = [];
  for (const candidate of ROUTES) {
    const params = matchPath(candidate.path, path);
    if (!params) continue;
    if (candidate.method !== method) {
      allowed.push(candidate.method);
      continue;
    }
    const kind = candidate.kind.replace('{objectType}', nameOf(params.objectType ?? '') ?? params.objectType ?? '');
    return { route: candidate, params, kind };
  }
  return allowed.length > 0 ? { allowed } : undefined;
}
