// The email of the CRM user who owns a record, for routes that alert the record's owner. Salesforce:
// the record's OwnerId, then User.Email; Dynamics 365: _ownerid_value, then systemuser's
// internalemailaddress; HubSpot: hubspot_owner_id, then the owners API (owners are not objects there,
// so the connector reads them: crm/hubspot/owners.ts). Owners' emails are kept for one delivery pass
// (ownerEmailCache): a storm's alerts to one seller read the user once, and a pass later sees a
// changed email.
import { CrmError, type CrmConnector, type CrmKind } from '../crm/connector.ts';
import { OWNER_PROPERTY } from '../crm/hubspot/owners.ts';
import { AlertSendError } from './send-error.ts';

type OwnerReader = { ownerEmail(ownerId: string): Promise<string | undefined> };

const OWNER: Record<CrmKind, { field: string; email: (crm: CrmConnector, ownerId: string) => Promise<string | undefined> }> = {
  salesforce: { field: 'OwnerId', email: (crm, id) => userField(crm, 'User', id, 'Email') },
  dynamics: { field: '_ownerid_value', email: (crm, id) => userField(crm, 'systemuser', id, 'internalemailaddress') },
  hubspot: {
    field: OWNER_PROPERTY,
    email: (crm, id) => {
      if (typeof (crm as Partial<OwnerReader>).ownerEmail !== 'function') throw new Error('This HubSpot connector cannot read owners');
      return (crm as CrmConnector & OwnerReader).ownerEmail(id);
    },
  },
};

async function userField(crm: CrmConnector, object: string, id: string, field: string): Promise<string | undefined> {
  const value = (await crm.getById(object, id, [field]))?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** Owner ids to their email (or to none), for one delivery pass. */
export type OwnerEmailCache = Map<string, Promise<string | undefined>>;

const passes = new WeakMap<CrmConnector, { pass: string; emails: OwnerEmailCache }>();

/** The owners' emails read so far in this pass (`pass`: the delivery run's id) through this connector; a new pass starts empty. */
export function ownerEmailCache(crm: CrmConnector, pass: string): OwnerEmailCache {
  const held = passes.get(crm);
  if (held?.pass === pass) return held.emails;
  const emails: OwnerEmailCache = new Map();
  passes.set(crm, { pass, emails });
  return emails;
}

/**
 * The email of the owner of `object` `crmId`, or undefined when it has none (no owner, a user without an
 * email, a deactivated HubSpot owner). A CRM refusal that another try cannot mend (a missing scope or
 * field) is a refused alert naming it; an outage is thrown as it is, for the delivery's retries.
 */
export async function ownerEmail(crm: CrmConnector, kind: CrmKind, object: string, crmId: string, cache: OwnerEmailCache = new Map()): Promise<string | undefined> {
  const how = OWNER[kind];
  try {
    const ownerId = (await crm.getById(object, crmId, [how.field]))?.[how.field];
    if (typeof ownerId !== 'string' || !ownerId) return undefined;
    let email = cache.get(ownerId);
    if (!email) {
      email = how.email(crm, ownerId).then((found) => (found && found.includes('@') ? found.trim() : undefined));
      cache.set(ownerId, email);
      email.catch(() => cache.delete(ownerId)); // a failed read is not remembered
    }
    return await email;
  } catch (error) {
    if (error instanceof CrmError && !error.retryable) {
      throw new AlertSendError(`Could not read the record owner's email from the CRM: ${error.message}`, { service: 'CRM', answer: error.message, permanent: true });
    }
    throw error;
  }
}
