// The one place where the worker's object names become the names HubSpot's API paths take. The worker,
// its mappings and its record links name the entitlement object `marketplace_entitlement`; HubSpot has
// not accepted a custom object's bare name in API paths since June 2025 (developer changelog "Removed
// Support for Referencing Custom Object Types by Base Name"): a path names it by its objectTypeId (2-...)
// or fully qualified name. The connector turns every object name into its API name here, at its
// boundary, so writes, searches and associations never meet a bare custom name.
import { ENTITLEMENT_OBJECT } from '../../mappings/hubspot/schema.ts';
import { USAGE_OBJECT } from '../../mappings/hubspot/usage-schema.ts';
import { CrmError } from '../connector.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';
import { errorBody } from './errors.ts';

/** The custom objects the project defines (mappings/hubspot/schema.ts); every other name is HubSpot's own. */
export const CUSTOM_OBJECTS: ReadonlySet<string> = new Set([ENTITLEMENT_OBJECT, USAGE_OBJECT]);

export type CustomObjectSchema = { name: string; objectTypeId: string; fullyQualifiedName?: string };

/** The account's custom objects (GET /crm-object-schemas/v3/schemas). */
export async function readCustomObjects(transport: HubSpotTransport, signal?: AbortSignal): Promise<CustomObjectSchema[]> {
  const answer = await transport.call("reading the account's custom object schemas", (client) => client.crm.schemas.coreApi.getAll(), { signal });
  return answer.results.map((schema) => ({ name: schema.name, objectTypeId: schema.objectTypeId ?? `2-${schema.id}`, fullyQualifiedName: schema.fullyQualifiedName }));
}

/**
 * The scopes HubSpot's 403 MISSING_SCOPES says a call needs (`errors[].context.requiredGranularScopes`,
 * or `requiredScopes` in older answers), or undefined when the error is not a missing scope.
 */
export function missingScopes(error: unknown): string[] | undefined {
  if (!(error instanceof HubSpotCallError) || error.info.status !== 403 || error.info.category !== 'MISSING_SCOPES') return undefined;
  const body = errorBody(error.cause);
  const details = ((body as { errors?: { context?: Record<string, unknown> }[] } | undefined)?.errors ?? []).flatMap((detail) => [
    ...((detail.context?.requiredGranularScopes as string[] | undefined) ?? []),
    ...((detail.context?.requiredScopes as string[] | undefined) ?? []),
  ]);
  return [...new Set(details.filter((scope) => typeof scope === 'string'))];
}

/**
 * `known`: API names the connection saved (its `crm-sync setup` resolved them). A custom object it does
 * not know (a connection saved before they were kept) is looked up once in the account's schemas and
 * kept for the life of the connector; a missing one is looked up again next time (setup may create it).
 */
export function createObjectTypes(transport: HubSpotTransport, known: Readonly<Record<string, string | undefined>> = {}) {
  const resolved = new Map<string, string>(Object.entries(known).filter((entry): entry is [string, string] => Boolean(entry[1])));
  let reading: Promise<CustomObjectSchema[]> | undefined;

  return {
    /** The name API paths take for `object`. */
    async apiName(object: string, signal?: AbortSignal): Promise<string> {
      if (!CUSTOM_OBJECTS.has(object)) return object;
      const found = resolved.get(object);
      if (found) return found;
      reading ??= readCustomObjects(transport, signal).finally(() => {
        reading = undefined;
      });
      let schemas: CustomObjectSchema[];
      try {
        schemas = await reading;
      } catch (error) {
        const scopes = missingScopes(error);
        if (scopes) throw new CrmError(`HubSpot refused to list the account's custom objects, which the sync needs to find ${object}: the app lacks the scope ${scopes.join(' or ')}. Add it to the app in HubSpot, or run crm-sync setup <connection> with a token that has it`, { code: 'MISSING_SCOPES', retryable: false, cause: error });
        throw error;
      }
      const schema = schemas.find((candidate) => candidate.name === object);
      if (!schema) throw new CrmError(`HubSpot has no custom object ${object} in this account: run crm-sync setup <connection> to create it`, { code: 'SCHEMA_MISSING', retryable: false });
      resolved.set(object, schema.objectTypeId);
      return schema.objectTypeId;
    },
  };
}

export type ObjectTypes = ReturnType<typeof createObjectTypes>;
