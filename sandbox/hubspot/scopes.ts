// The scopes a request needs, for the calls where a missing scope changes what a connector must do:
// the schemas API and custom objects' records. A token lacking every scope a call accepts is answered
// 403 MISSING_SCOPES, in HubSpot's words (PostHog/posthog#53339 quotes the answer:
// "This app hasn't been granted all required scopes to make this call...", `errors[0].context.
// requiredGranularScopes`). The scopes per operation are those of HubSpot's OpenAPI specs
// (schemas.v3.json; objects.v3.json lists crm.objects.custom.* for custom objects). Standard objects
// are not checked: the sandbox's tokens hold their scopes.
import { HubSpotError } from './errors.ts';
import type { SandboxState } from './state.ts';

const READS = new Set(['GET']);

/** The scopes (any one suffices) `method path` needs, or undefined when the sandbox does not check it. */
export function requiredScopes(state: SandboxState, method: string, path: string, params: Record<string, string>): string[] | undefined {
  if (path.startsWith('/crm-object-schemas/v3/schemas')) {
    return READS.has(method) ? ['crm.schemas.custom.read', 'crm.objects.custom.read'] : ['crm.schemas.custom.write'];
  }
  const types = [params.objectType, params.fromType, params.toType].map((raw) => (raw === undefined ? undefined : state.store.objectType(raw)));
  // Products and line items (issue #28): their records need crm.objects.products.* / crm.objects.line_items.*
  // (the products and line items guides' scope lists); their properties are not checked.
  const catalogue = types.find((type) => type?.name === 'products' || type?.name === 'line_items');
  if (catalogue && !path.startsWith('/crm/v3/properties/')) {
    const reading = READS.has(method) || /\/(search|batch\/read)$/.test(path);
    return reading ? [`crm.objects.${catalogue.name}.read`, `crm.objects.${catalogue.name}.write`] : [`crm.objects.${catalogue.name}.write`];
  }
  const custom = types.some((type) => type?.custom);
  if (!custom) return undefined;
  if (path.startsWith('/crm/v3/properties/')) return READS.has(method) ? ['crm.schemas.custom.read', 'crm.objects.custom.read'] : ['crm.schemas.custom.write'];
  const reading = READS.has(method) || /\/(search|batch\/read)$/.test(path);
  return reading ? ['crm.objects.custom.read', 'crm.objects.custom.write'] : ['crm.objects.custom.write'];
}

/** HubSpot's 403 when the token holds none of the scopes the call accepts. */
export function checkScopes(state: SandboxState, method: string, path: string, params: Record<string, string>): void {
  const wanted = requiredScopes(state, method, path, params);
  if (!wanted || wanted.some((scope) => !state.withheldScopes.has(scope))) return;
  throw new HubSpotError(403, 'MISSING_SCOPES', "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.", {
    errors: [{ message: 'One or more of the following scopes are required.', context: { requiredGranularScopes: wanted } }],
    links: { scopes: 'https://developers.hubspot.com/scopes' },
  });
}
