// What a CRM-to-commerce flow writes back onto a CRM record, as this org takes it: a field the side
// declares optional (one a later `crm-sync setup` adds, such as the drafts' own errors field) is written
// only where the org has it, after the side's own fallback for an org without it (CrmSide.fitWrite).
// Writing a field the org lacks would fail the whole record (Salesforce INVALID_FIELD, HubSpot
// PROPERTY_DOESNT_EXIST, Dataverse "Could not find a property named ..."): docs/crm-wire-behaviour.md.
import type { CrmRecord, ObjectSchema } from '../crm/connector.ts';
import type { CrmSide } from './crm-to-commerce.ts';

export function fitWriteBack(side: Pick<CrmSide<unknown>, 'optionalFields' | 'fitWrite'>, schema: Pick<ObjectSchema, 'fields'>, fields: CrmRecord): CrmRecord {
  const has = (name: string) => schema.fields.has(name);
  const fitted = side.fitWrite ? side.fitWrite(fields, has) : fields;
  const absent = new Set((side.optionalFields ?? []).filter((name) => !has(name)));
  if (absent.size === 0) return fitted;
  return Object.fromEntries(Object.entries(fitted).filter(([name]) => !absent.has(name)));
}
