// Which parents a mapped record points at: a relationship reference such as
// Opportunity__r: { Commerce_Offer_Id__c: 'offer-7' } names the offer whose mapping keys its CRM record
// by Commerce_Offer_Id__c. Pure: used to hold back a child whose parent has not reached the CRM yet.
import type { CrmRecord } from '../crm/connector.ts';
import { FLOW_ORDER } from '../flows/index.ts';
import type { Entity } from '../mappings/types.ts';

export type ParentReference = { entity: Entity; sourceId: string };

export function parentReferences(fields: CrmRecord, externalIdFields: Partial<Record<Entity, string>>): ParentReference[] {
  const entityByKey = entitiesByKey(externalIdFields);
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
  const entityByKey = entitiesByKey(externalIdFields);
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

/**
 * The flow a reference by each key names: of the flows keyed by one field, the first in run order (parents
 * first), the one that makes the record; a later flow keyed alike only sets fields on it (a buyer's
 * live-agreement mark, an entitlement's usage summary) and holds no link a reference could wait for.
 */
function entitiesByKey(externalIdFields: Partial<Record<Entity, string>>): Map<string, Entity> {
  const rank = (entity: string) => (FLOW_ORDER.includes(entity as Entity) ? FLOW_ORDER.indexOf(entity as Entity) : FLOW_ORDER.length);
  const byKey = new Map<string, Entity>();
  for (const [entity, field] of Object.entries(externalIdFields).sort(([a], [b]) => rank(a) - rank(b))) if (field && !byKey.has(field)) byKey.set(field, entity as Entity);
  return byKey;
}
