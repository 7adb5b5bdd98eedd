// After a CRM create, the CRM id goes onto the commerce record, only when it differs from what the
// record already carries. Salesforce: crmAOpportunityId on offers, crmAEntitlementURL on entitlements.
import pLimit from 'p-limit';
import type { CommerceClient } from '../commerce/index.ts';
import type { Entity } from '../mappings/types.ts';

export type WriteBack = { sourceId: string; crmId: string; current?: Record<string, unknown> };

export async function writeBackPatch(entity: Entity, crmId: string, recordUrl: (crmId: string) => Promise<string>): Promise<Record<string, string> | undefined> {
  if (entity === 'offer') return { crmAOpportunityId: crmId };
  if (entity === 'entitlement') return { crmAEntitlementURL: await recordUrl(crmId) };
  return undefined;
}

/** Writes the ids back, a few requests at a time (each PATCH is idempotent); returns how many were sent. */
export async function writeBackIds(commerce: CommerceClient, orgId: string, entity: Entity, items: WriteBack[], recordUrl: (crmId: string) => Promise<string>, concurrency = 8): Promise<number> {
  const limit = pLimit(concurrency);
  const sent = await Promise.all(
    items.map((item) =>
      limit(async () => {
        const patch = await writeBackPatch(entity, item.crmId, recordUrl);
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
