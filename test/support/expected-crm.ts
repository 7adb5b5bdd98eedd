// What the CRM should hold: the commerce sandbox's records run through the default mappings.
import { applyMapping } from '../../mappings/overrides.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import type { Entity } from '../../mappings/types.ts';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';

const COMMERCE_KIND: Record<Entity, string> = { buyer: 'buyers', contact: 'contacts', offer: 'offers', entitlement: 'entitlements', referral: 'referrals' };

export async function commerceDump(commerce: Pick<CommerceSandbox, 'apiUrl'>, kind: string): Promise<any[]> {
  const body: any = await (await fetch(`${commerce.apiUrl}/_sandbox/records/${kind}`)).json();
  return Array.isArray(body) ? body : (body.records ?? body.rows);
}

/** The CRM records the default mappings say the commerce side should produce, by external id. */
export async function expectedCrmState(commerce: Pick<CommerceSandbox, 'apiUrl'>, entity: Entity): Promise<Map<string, Record<string, unknown>>> {
  const mapping = SALESFORCE_MAPPINGS[entity];
  const records = await commerceDump(commerce, COMMERCE_KIND[entity]);
  const terms = entity === 'entitlement' ? await commerceDump(commerce, 'entitlementTerms') : [];
  const termsByEntitlement = Map.groupBy(terms, (term: { entitlementID: string }) => term.entitlementID);
  const expected = new Map<string, Record<string, unknown>>();
  for (const record of records) {
    const result = applyMapping(mapping as never, undefined, record, { terms: termsByEntitlement.get(record.id) ?? [] } as never);
    if (result.ok) expected.set(result.record.externalId, result.record.fields);
  }
  return expected;
}

/** Compares one mapped field with what the CRM stored (date-times compared as instants). */
export function sameValue(expected: unknown, stored: unknown): boolean {
  if (expected === null || expected === undefined) return stored === null || stored === undefined;
  if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expected) && typeof stored === 'string') return Date.parse(expected) === Date.parse(stored);
  if (typeof expected === 'object') return JSON.stringify(expected) === JSON.stringify(stored);
  return expected === stored;
}
