// An upsert by external id that Salesforce matched to a record it already holds, refused because the
// item carries fields Salesforce takes only when a record is made (describe: createable, not
// updateable; e.g. PricebookEntry.Product2Id, Pricebook2Id, CurrencyIsoCode: "It can't be changed in an
// update"). Salesforce answers INVALID_FIELD_FOR_INSERT_UPDATE ("Unable to create/update fields: ...")
// and saves nothing. The sync leaves such fields out only for records it has a link for (sync/plan.ts);
// a record whose link was lost (the worker killed after the upsert, before the link was kept; a
// connection made again on an org that holds the records) would be refused on every run, a dead letter
// that never clears. Why here and not in the sync: only the connector can tell a create from an update
// of an upsert before sending it (it would take a query per batch for every flow), and only
// Salesforce's answer says the record exists; the retry costs one call, and only for such refusals.
// So the refused items are sent once more by their external id without those fields: the record exists
// (a create would have taken them), so the upsert updates it. What that second answer says is the
// record's result. Sources: docs/crm-wire-behaviour.md, Salesforce "Create-only fields on an upsert".
import type { ObjectSchema, UpsertItem, UpsertResult } from '../connector.ts';

export const CREATE_ONLY_REFUSAL = 'INVALID_FIELD_FOR_INSERT_UPDATE';

/**
 * The names of an item's fields Salesforce takes only on create: a field named as describe names it
 * (Pricebook2Id) or by its relationship (Product2: { Commerce_Price_Key__c: ... } for Product2Id).
 */
export function createOnlyFieldsOf(schema: ObjectSchema, fields: Record<string, unknown>): string[] {
  const createOnly = [...schema.fields.values()].filter((field) => field.createable && field.updateable === false);
  return Object.keys(fields).filter((name) => createOnly.some((field) => field.name === name || (field.relationshipName !== undefined && field.relationshipName === name)));
}

/**
 * Results of an upsert by external id, with the items Salesforce refused for a create-only field sent
 * once more without their create-only fields (`resend`, an upsert by the same external id). An item
 * with no create-only field keeps its refusal (a field the user may not edit: field-level security).
 */
export async function resendWithoutCreateOnly(
  items: UpsertItem[],
  results: UpsertResult[],
  schema: () => Promise<ObjectSchema>,
  resend: (items: UpsertItem[]) => Promise<UpsertResult[]>,
): Promise<UpsertResult[]> {
  const refused = results.flatMap((result, index) => (!result.ok && result.error.code === CREATE_ONLY_REFUSAL ? [index] : []));
  if (refused.length === 0) return results;
  const described = await schema();
  const again: { index: number; item: UpsertItem }[] = [];
  for (const index of refused) {
    const item = items[index]!;
    const dropped = createOnlyFieldsOf(described, item.fields);
    if (dropped.length) again.push({ index, item: { ...item, fields: Object.fromEntries(Object.entries(item.fields).filter(([name]) => !dropped.includes(name))) } });
  }
  if (again.length === 0) return results;
  const resent = await resend(again.map((entry) => entry.item));
  const settled = [...results];
  again.forEach((entry, k) => {
    settled[entry.index] = resent[k]!;
  });
  return settled;
}
