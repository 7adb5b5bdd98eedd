// After a CRM write, the CRM ids go onto the commerce record's metaInfo, only when they differ from what
// the record already carries. Which fields, per CRM (contract §2.6):
//   Salesforce (crmA): offer crmAOpportunityId, entitlement crmAEntitlementURL, both crmAAccountId (the
//                      buyer's Account);
//   HubSpot (crmB):    offer crmBDealId;
//   Dynamics (crmC):   offer crmCOpportunityId, a lowercased GUID without braces.
import pLimit from 'p-limit';
import type { CommerceClient } from '../commerce/index.ts';
import type { Entity } from '../mappings/types.ts';
import type { CrmKind } from '../store/connections.ts';

export type WriteBack = { sourceId: string; crmId: string; /** The buyer's CRM account, when linked. */ accountId?: string; current?: Record<string, unknown> };

/** Dynamics ids are GUIDs; the contract wants them lowercased and without braces. */
export function dynamicsGuid(id: string): string {
  return id.trim().replace(/^\{|\}$/g, '').toLowerCase();
}

/** The metaInfo fields a write of `entity` to a CRM of `kind` leaves on the commerce record (pure but for the URL). */
export async function writeBackPatch(kind: CrmKind, entity: Entity, item: Pick<WriteBack, 'crmId' | 'accountId'>, recordUrl: (crmId: string) => Promise<string>): Promise<Record<string, string> | undefined> {
  const account: Record<string, string> = item.accountId ? { crmAAccountId: item.accountId } : {};
  switch (kind) {
    case 'salesforce':
      if (entity === 'offer') return { crmAOpportunityId: item.crmId, ...account };
      if (entity === 'entitlement') return { crmAEntitlementURL: await recordUrl(item.crmId), ...account };
      return undefined;
    case 'hubspot':
      return entity === 'offer' ? { crmBDealId: item.crmId } : undefined;
    case 'dynamics':
      return entity === 'offer' ? { crmCOpportunityId: dynamicsGuid(item.crmId) } : undefined;
  }
}

/** Writes the ids back, a few requests at a time (each PATCH is idempotent); returns how many were sent. */
export async function writeBackIds(commerce: CommerceClient, orgId: string, kind: CrmKind, entity: Entity, items: WriteBack[], recordUrl: (crmId: string) => Promise<string>, concurrency = 8): Promise<number> {
  if (entity !== 'offer' && entity !== 'entitlement') return 0;
  const limit = pLimit(concurrency);
  const sent = await Promise.all(
    items.map((item) =>
      limit(async () => {
        const patch = await writeBackPatch(kind, entity, item, recordUrl);
        if (!patch) return false;
        const differs = Object.entries(patch).some(([field, value]) => item.current?.[field] !== value);
        if (!differs) return false;
        if (entity === 'offer') await commerce.offers.updateMetaInfo(orgId, item.sourceId, patch);
        else await commerce.entitlements.updateMetaInfo(orgId, item.sourceId, patch);
        return true;
      }),
    ),
  );
  return sent.filter(Boolean).length;
}
