// The email of the CRM user who owns a record, for routes that alert the record's owner. Salesforce:
// the record's OwnerId, then User.Email; Dynamics 365: _ownerid_value, then systemuser's
// internalemailaddress. HubSpot keeps owners outside its objects (the owners API), which the connector
// does not read yet: such a route fails with that said, as a dead letter.
import type { CrmConnector, CrmKind } from '../crm/connector.ts';

const OWNER: Partial<Record<CrmKind, { field: string; userObject: string; emailField: string }>> = {
  salesforce: { field: 'OwnerId', userObject: 'User', emailField: 'Email' },
  dynamics: { field: '_ownerid_value', userObject: 'systemuser', emailField: 'internalemailaddress' },
};

export async function ownerEmail(crm: CrmConnector, kind: CrmKind, object: string, crmId: string): Promise<string | undefined> {
  const how = OWNER[kind];
  if (!how) throw new Error(`Alerts to the record owner are not available for ${kind} yet (its owners are read through an API this worker does not call); use an email route instead`);
  const record = await crm.getById(object, crmId, [how.field]);
  const ownerId = record?.[how.field];
  if (typeof ownerId !== 'string' || !ownerId) return undefined;
  const user = await crm.getById(how.userObject, ownerId, [how.emailField]);
  const email = user?.[how.emailField];
  return typeof email === 'string' && email.includes('@') ? email : undefined;
}
