// Dispatches one Web API request (top-level or inside a $batch) by its first path segment: an
// entity set, EntityDefinitions / RelationshipDefinitions, WhoAmI, systemusers (privileges.ts),
// organizations and transactioncurrencies (currencies.ts),
// ReactivateEntityKey (key-jobs.ts) or $batch. Alternate key jobs move on first.
import { handleOrganizations, handleTransactionCurrencies } from './currencies.ts';
import { DataverseError, odataError } from './errors.ts';
import { json, type ApiRequest, type Reply } from './http.ts';
import { parseResourcePath } from './keys.ts';
import { reactivateEntityKey, settleKeys } from './key-jobs.ts';
import { handleMetadata, publishXml } from './metadata.ts';
import { handleSystemUsers } from './privileges.ts';
import { closeOpportunity, isCloseAction } from './opportunity-states.ts';
import { handleRecords } from './records.ts';
import { publishProductHierarchy } from './catalogue.ts';
import { nameGuid } from './schema.ts';

/** What a request is counted under: "<METHOD> <segment>". */
export function kindOf(method: string, path: string): string {
  const segment = /^([A-Za-z_$][\w.$]*)/.exec(path)?.[1] ?? path;
  return `${method} ${segment}`;
}

export function handleApi(req: ApiRequest): Reply {
  try {
    settleKeys(req.state);
    const { segment, key, rest } = parseResourcePath(req.path);
    if (segment === 'ReactivateEntityKey' && req.method === 'POST') return reactivateEntityKey(req);
    if (segment === 'PublishXml' && req.method === 'POST' && !key && !rest) return publishXml(req);
    // RetrieveUserPrivileges (privileges.ts); the users themselves are rows (users.ts).
    if (segment === 'systemusers' && rest) return handleSystemUsers(req, key, rest);
    if (segment === 'organizations') return handleOrganizations(req, key, rest);
    if (segment === 'transactioncurrencies') return handleTransactionCurrencies(req, key, rest);
    if (segment === 'EntityDefinitions' || segment === 'RelationshipDefinitions') return handleMetadata(req, segment, key, rest);
    if (segment === 'WhoAmI' && req.method === 'GET') {
      const c = req.state.config.credentials;
      return json(200, { '@odata.context': `${req.base}$metadata#Microsoft.Dynamics.CRM.WhoAmIResponse`, BusinessUnitId: nameGuid(`bu:${c.tenantId}`), UserId: nameGuid(`user:${c.clientId}`), OrganizationId: nameGuid(`org:${c.tenantId}`) });
    }
    if (isCloseAction(segment) && !key && !rest) return closeOpportunity(req, segment);
    // The product family action (issue #28): POST products(<guid>)/Microsoft.Dynamics.CRM.PublishProductHierarchy.
    if (segment === 'products' && key && 'guid' in key && /^\/(Microsoft\.Dynamics\.CRM\.)?PublishProductHierarchy$/.test(rest) && req.method === 'POST') {
      publishProductHierarchy(req.state, key.guid);
      return { status: 204 };
    }
    const entity = req.state.store.entityBySet(segment);
    if (!entity) throw odataError(`Resource not found for the segment '${segment}'.`, 404);
    return handleRecords(req, entity, key, rest);
  } catch (error) {
    if (error instanceof DataverseError) return { status: error.status, json: error.body(), headers: error.headers };
    return { status: 500, json: { error: { code: '0x80040216', message: `The Dynamics sandbox failed: ${(error as Error).stack ?? String(error)}` } } };
  }
}
