// A record's owner as a person: HubSpot keeps owners outside its objects, so `hubspot_owner_id` (the
// owner's `id`) is read with GET /crm/v3/owners/{ownerId} (docs/crm-wire-behaviour.md, "Issue #27
// follow-up: the owner's email"). Through the connection's transport, as every other read: its rate
// limits, its daily budget and its retries of 429s and 5xx.
import { CrmError } from '../connector.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';

/** The scope HubSpot asks of an app that reads owners. */
export const OWNERS_SCOPE = 'crm.objects.owners.read';

/** The property holding a record's owner: an owner's `id` (never its `userId`). */
export const OWNER_PROPERTY = 'hubspot_owner_id';

/** The owner's email, or undefined when HubSpot has no such (active) owner or it has no email. */
export async function ownerEmailOf(transport: HubSpotTransport, ownerId: string, signal?: AbortSignal): Promise<string | undefined> {
  // The client takes the id as a number; owner ids are digits (a value that is not names no owner).
  if (!/^\d+$/.test(ownerId)) return undefined;
  try {
    const owner = await transport.call(`reading the owner ${ownerId}`, (client) => client.crm.owners.ownersApi.getById(Number(ownerId), 'id', false), { signal });
    const email = owner.email?.trim();
    return email && email.includes('@') ? email : undefined;
  } catch (error) {
    // A deactivated user's owner is archived: not found among the active ones, so nobody to write to.
    if (error instanceof HubSpotCallError && error.info.status === 404) return undefined;
    if (error instanceof HubSpotCallError && error.info.status === 403) {
      throw new CrmError(`HubSpot refused reading the record's owner (${error.info.message}): give the connection's app the scope ${OWNERS_SCOPE}`, { code: error.info.category ?? 'MISSING_SCOPES', retryable: false, cause: error });
    }
    throw error;
  }
}
