// `crm-sync preview`: the next sync as a dry run. The same page activity runs with dryRun, so what is
// reported is exactly what the sync would decide; nothing is written to the CRM, the links or cursors.
import type pg from 'pg';
import { createSyncActivities, type PageCounts } from '../activities/sync.ts';
import type { Entity } from '../mappings/types.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { referralStageFlow } from '../flows/referral-stage.ts';
import type { ShareRule } from './connection-settings.ts';
import { createRuntimeCache } from './runtime.ts';
import type { StageOwner } from './stage-policy.ts';

export type EntityPreview = { create: number; update: number; unchanged: number; reject: number; reasons: { sourceId: string; reason: string }[] };
/** Per entity what the next sync would do, and the co-sell policy in effect (who owns each two-way field, the stage tables). */
export type PreviewReport = Partial<Record<Entity, EntityPreview>> & { cosell?: CosellPolicy };
export type CosellPolicy = { enabled: boolean; share: ShareRule; owners: { stage: StageOwner }; stages: { toCommerce: Record<string, string>; toCrm: Record<string, string> } };

/** Where a preview is, after each page: the entity (index of `of`) and its counts so far (the CLI's progress bar). */
export type PreviewProgress = { entity: Entity; index: number; of: number; counts: EntityPreview };

export async function runPreview(pool: pg.Pool, connections: ConnectionStore, connectionId: string, entities?: Entity[], onPage?: (progress: PreviewProgress) => void): Promise<PreviewReport> {
  const activities = createSyncActivities({ pool, runtimeFor: createRuntimeCache(connections) });
  const started = await activities.startSync({ connectionId, entities });
  const rt = await createRuntimeCache(connections)(connectionId);
  const { cosell } = rt.settings;
  const report: PreviewReport = {
    cosell: {
      enabled: cosell.enabled,
      share: cosell.share,
      owners: cosell.owners,
      stages: { toCommerce: { ...referralStageFlow.crm[rt.crm.kind]?.tables.toCommerce, ...cosell.stages.toCommerce }, toCrm: { ...referralStageFlow.crm[rt.crm.kind]?.tables.toCrm, ...cosell.stages.toCrm } },
    },
  };
  for (const [index, entity] of started.entities.entries()) {
    const line = { create: 0, update: 0, unchanged: 0, reject: 0, reasons: [] as { sourceId: string; reason: string }[] };
    let cursor = started.starts[entity]!;
    for (;;) {
      const outcome = await activities.syncEntityPage({ connectionId, entity, cursor, until: started.until, pageSize: started.pageSize, advanceStoredCursor: false, dryRun: true });
      const counts: PageCounts = outcome;
      line.create += counts.created;
      line.update += counts.updated;
      line.unchanged += counts.unchanged;
      line.reject += counts.failed;
      if (line.reasons.length < 100) line.reasons.push(...(outcome.rejections ?? []).slice(0, 100 - line.reasons.length));
      onPage?.({ entity, index: index + 1, of: started.entities.length, counts: line });
      if (outcome.done) break;
      cursor = outcome.nextCursor;
    }
    report[entity] = line;
  }
  return report;
}
