// The renewing entitlement shows the one it renews (issue #25 section 2, Previous_Entitlement__c): where
// the renewal flow knows both (flows/renewal.ts reads, for an entitlement e, the entitlement r that came
// from e's renewal offer), r's CRM record points back at e. The contract's own chain (initialAgreementId)
// names the chain's root agreement, not the previous entitlement, so this link can only be made here.
// Salesforce: Marketplace_Entitlement__c.Previous_Entitlement__c (lookup); Dynamics:
// ccs_marketplaceentitlement.ccs_previousentitlementid (lookup); HubSpot: the text property
// previous_entitlement_id holding e's commerce id (docs/crm-wire-behaviour.md says why not an association).
// Written once: only where r's link is still empty, so a quiet run reads once and writes nothing, and a
// link a seller changed by hand stays theirs. An org set up before this field gets nothing (run
// `crm-sync setup` to add it); an r not in the CRM yet waits for the next run, which reads e again.
import type { CrmConnector, CrmKind } from '../crm/connector.ts';
import type { RenewalContext } from '../mappings/canonical/renewal.ts';
import type { AfterWriteContext } from './types.ts';

type PreviousLink = {
  object: string;
  /** The entitlement's key field (its commerce id). */
  key: string;
  /** The field written on the renewing entitlement. */
  field: string;
  /** The name the field reads back as. */
  read: string;
  /** What the field holds: the previous entitlement's CRM id (a lookup) or its commerce id (text). */
  holds: 'crm id' | 'commerce id';
};

export const PREVIOUS_ENTITLEMENT_LINKS: Record<CrmKind, PreviousLink> = {
  salesforce: { object: 'Marketplace_Entitlement__c', key: 'Commerce_Entitlement_Id__c', field: 'Previous_Entitlement__c', read: 'Previous_Entitlement__c', holds: 'crm id' },
  hubspot: { object: 'marketplace_entitlement', key: 'entitlement_id', field: 'previous_entitlement_id', read: 'previous_entitlement_id', holds: 'commerce id' },
  dynamics: { object: 'ccs_marketplaceentitlement', key: 'ccs_entitlementid', field: 'ccs_previousentitlementid', read: '_ccs_previousentitlementid_value', holds: 'crm id' },
};

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** Whether the org has the field (a HubSpot account without the custom object has none either). */
async function orgHas(crm: CrmConnector, link: PreviousLink): Promise<boolean> {
  try {
    return (await crm.describe(link.object)).fields.has(link.field);
  } catch {
    // No such object here (HubSpot entitlements kept as line items): nothing to point from.
    return false;
  }
}

export async function linkRenewingEntitlementsToPrevious({ crm, linked, related, signal }: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const link = PREVIOUS_ENTITLEMENT_LINKS[crm.kind];
  if (!link || !related) return [];
  // The renewal flow's source ids are the entitlement ids; its related context names the renewing one.
  const pairs = linked.flatMap(({ sourceId }) => {
    const successor = (related(sourceId) as RenewalContext | undefined)?.successor?.id;
    return successor && successor !== sourceId ? [{ previous: sourceId, next: successor }] : [];
  });
  if (pairs.length === 0 || !(await orgHas(crm, link))) return [];
  const wanted = [...new Set(pairs.flatMap((pair) => (link.holds === 'crm id' ? [pair.previous, pair.next] : [pair.next])))];
  const found = await crm.findByExternalIds(link.object, link.key, wanted, [link.read]);
  const updates = pairs.flatMap(({ previous, next }) => {
    const renewing = found.get(next);
    if (!renewing || !isEmpty(renewing[link.read])) return [];
    const value = link.holds === 'crm id' ? found.get(previous)?.[crm.idField] : previous;
    return value ? [{ sourceId: previous, crmId: String(renewing[crm.idField]), fields: { [link.field]: String(value) } }] : [];
  });
  if (updates.length === 0) return [];
  const results = await crm.update(link.object, updates, { signal });
  return results.flatMap((result) =>
    result.ok ? [] : [{ sourceId: result.sourceId, reason: `the entitlement that renewed ${result.sourceId} is in the CRM, but it could not be pointed back at ${result.sourceId} (${link.field}): ${result.error.message}` }],
  );
}
