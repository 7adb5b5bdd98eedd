// Which parents a mapped record points at: a relationship reference such as
// Opportunity__r: { Commerce_Offer_Id__c: 'offer-7' } names the offer whose mapping keys its CRM record
// by Commerce_Offer_Id__c. Pure: used to hold back a child whose parent has not reached the CRM yet.
import type { CrmRecord } from '../crm/connector.ts';
import type { Entity } from '../mappings/types.ts';

export type ParentReference = { entity: Entity; sourceId: string };

export function parentReferences(fields: CrmRecord, externalIdFields: Partial<Record<Entity, string>>): ParentReference[] {
  const entityByKey = new Map(Object.entries(externalIdFields).map(([entity, field]) => [field, entity as Entity]));
  const references: ParentReference[] = [];
  for (const value of Object.values(fields)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const entries = Object.entries(value);
    if (entries.length !== 1) continue;
    const [[key, id]] = entries as [[string, unknown]];
    const entity = entityByKey.get(key);
    if (entity && typeof id === 'string' && id) references.push({ entity, sourceId: id });
  }
  return references;
}

/** Every record a mapped record's references name (arrays too, e.g. a deal's contacts), with its reference key. */
export function referencedRecords(fields: CrmRecord, externalIdFields: Partial<Record<Entity, string>>): (ParentReference & { key: string })[] {
  const entityByKey = new Map(Object.entries(externalIdFields).map(([entity, field]) => [field, entity as Entity]));
  const found: (ParentReference & { key: string })[] = [];
  for (const value of Object.values(fields)) {
    for (const reference of Array.isArray(value) ? value : [value]) {
      if (!reference || typeof reference !== 'object' || Array.isArray(reference)) continue;
      const entries = Object.entries(reference);
      if (entries.length !== 1) continue;
      const [[key, id]] = entries as [[string, unknown]];
      const entity = entityByKey.get(key);
      if (entity && typeof id === 'string' && id) found.push({ entity, sourceId: id, key: `${key}=${id}` });
    }
  }
  return found;
}
