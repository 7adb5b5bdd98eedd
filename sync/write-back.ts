// After a CRM write, the CRM ids go onto the commerce record's metaInfo, only when they differ from what
// the record already carries. Which fields, per CRM, is each flow's declaration (flows/*.ts, contract §2.6):
//   Salesforce (crmA): offer crmAOpportunityId, entitlement crmAEntitlementURL, both crmAAccountId (the
//                      buyer's Account); HubSpot (crmB): offer crmBDealId; Dynamics (crmC): offer
//                      crmCOpportunityId, a lowercased GUID without braces.
import pLimit from 'p-limit';
import type { CommerceClient } from '../commerce/index.ts';
import type { CrmKind } from '../crm/connector.ts';
import { FLOWS } from '../flows/index.ts';
import type { Entity } from '../mappings/types.ts';
import type { KnownStamp } from '../store/record-links.ts';
import { ownWriteBackStamp } from './write-back-stamps.ts';

export { dynamicsGuid } from '../mappings/values.ts';

export type WriteBack = { sourceId: string; crmId: string; /** The buyer's CRM account, when linked. */ accountId?: string; current?: Record<string, unknown> };

/** The metaInfo fields a write of `entity` to a CRM of `kind` leaves on the commerce record (pure but for the URL). */
export async function writeBackPatch(kind: CrmKind, entity: Entity, item: Pick<WriteBack, 'crmId' | 'accountId' | 'current'>, recordUrl: (crmId: string) => Promise<string>): Promise<Record<string, string> | undefined> {
  return FLOWS[entity].writeBack?.[kind]?.({ crmId: item.crmId, accountId: item.accountId, current: item.current }, recordUrl);
}

/** `stamps`: what the answers of our own writes showed (sync/write-back-stamps.ts), kept with the links so the next run knows those records. */
export type WriteBackOutcome = { sent: number; refused: { sourceId: string; reason: string }[]; stamps: KnownStamp[] };
export type PlannedWriteBack = { sourceId: string; patch: Record<string, string> };

/** Which records need their ids written back: only those whose commerce record does not carry them yet. */
export async function planWriteBacks(kind: CrmKind, entity: Entity, items: WriteBack[], recordUrl: (crmId: string) => Promise<string>): Promise<PlannedWriteBack[]> {
  if (!FLOWS[entity].writeBack?.[kind] || !FLOWS[entity].source.updateMetaInfo) return [];
  const planned: PlannedWriteBack[] = [];
  for (const item of items) {
    const patch = await writeBackPatch(kind, entity, item, recordUrl);
    if (patch && Object.entries(patch).some(([field, value]) => item.current?.[field] !== value)) planned.push({ sourceId: item.sourceId, patch });
  }
  return planned;
}

/**
 * Sends planned write-backs, a few requests at a time (each PATCH is idempotent). A PATCH the commerce
 * side refuses (a 4xx: the record is locked, gone, or the value is not accepted) is reported for that
 * record and the others go on; a failure worth retrying (5xx, 429 after the client's own retries, a
 * network error) fails the call.
 */
export async function sendWriteBacks(
  commerce: CommerceClient,
  orgId: string,
  entity: Entity,
  planned: PlannedWriteBack[],
  options: {
    concurrency?: number;
    signal?: AbortSignal;
    onProgress?: (detail: Record<string, unknown>) => void;
    /** The records as read and synced, by id: an answer of our write alone on top of one gives its stamp. */
    synced?: ReadonlyMap<string, any>;
  } = {},
): Promise<WriteBackOutcome> {
  const outcome: WriteBackOutcome = { sent: 0, refused: [], stamps: [] };
  const holder = FLOWS[entity].source.current;
  const limit = pLimit(options.concurrency ?? 8);
  await Promise.all(
    planned.map(({ sourceId, patch }) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        try {
          const answer = await FLOWS[entity].source.updateMetaInfo!(commerce, orgId, sourceId, patch);
          outcome.sent += 1;
          const read = options.synced?.get(sourceId);
          const stamp = read && ownWriteBackStamp(read, patch, answer, holder);
          if (stamp) outcome.stamps.push({ sourceId, ...stamp });
        } catch (error) {
          const status = (error as { status?: number }).status;
          if (!status || status < 400 || status >= 500 || status === 429 || status === 401) throw error;
          outcome.refused.push({ sourceId, reason: `the commerce API refused to take the CRM id back onto ${entity} ${sourceId}: ${(error as Error).message}` });
        }
        options.onProgress?.({ entity, phase: 'write-back', sent: outcome.sent + outcome.refused.length, of: planned.length });
      }),
    ),
  );
  return outcome;
}
