// The entitlement shows its renewal (issue #25 section 3): once a renewal opportunity is in the CRM, the
// entitlement it renews points at it (Salesforce Marketplace_Entitlement__c.Renewal_Opportunity__c,
// Dynamics ccs_marketplaceentitlement.ccs_renewalopportunityid). HubSpot needs nothing more: the renewal
// deal's association to its entitlement shows on both records. Written only where the entitlement does not
// point there yet, so a quiet run reads once and writes nothing; an entitlement not in the CRM (yet) waits
// for the next run, which finds the renewal linked and tries again.
import type { CrmKind } from '../crm/connector.ts';
import type { AfterWriteContext } from './types.ts';

/** Where each CRM keeps the link: the entitlement object, its key, the lookup written and the field it reads back as. */
export const RENEWAL_LINKS: Partial<Record<CrmKind, { object: string; key: string; field: string; read: string }>> = {
  salesforce: { object: 'Marketplace_Entitlement__c', key: 'Commerce_Entitlement_Id__c', field: 'Renewal_Opportunity__c', read: 'Renewal_Opportunity__c' },
  dynamics: { object: 'ccs_marketplaceentitlement', key: 'ccs_entitlementid', field: 'ccs_renewalopportunityid', read: '_ccs_renewalopportunityid_value' },
};

const sameId = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

export async function linkEntitlementsToRenewals({ crm, linked, signal }: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const link = RENEWAL_LINKS[crm.kind];
  if (!link || linked.length === 0) return [];
  // The renewal flow's source ids are the entitlement ids.
  const entitlements = await crm.findByExternalIds(link.object, link.key, linked.map((item) => item.sourceId), [link.read]);
  const updates = linked.flatMap(({ sourceId, crmId }) => {
    const entitlement = entitlements.get(sourceId);
    const entitlementId = entitlement && String(entitlement[crm.idField]);
    return entitlementId && !sameId(entitlement[link.read], crmId) ? [{ sourceId, crmId: entitlementId, fields: { [link.field]: crmId } }] : [];
  });
  if (updates.length === 0) return [];
  const results = await crm.update(link.object, updates, { signal });
  return results.flatMap((result) => (result.ok ? [] : [{ sourceId: result.sourceId, reason: `the renewal opportunity is in the CRM, but its entitlement could not be pointed at it: ${result.error.message}` }]));
}
