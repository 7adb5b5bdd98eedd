// `crm-sync preview`: the next sync as a dry run. The same page activity runs with dryRun, so what is
// reported is exactly what the sync would decide; nothing is written to the CRM, the links or cursors.
import type pg from 'pg';
import { createSyncActivities, type PageCounts } from '../activities/sync.ts';
import type { Entity } from '../mappings/types.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { createRuntimeCache } from './runtime.ts';

export type PreviewReport = Partial<Record<Entity, { create: number; update: number; unchanged: number; reject: number; reasons: { sourceId: string; reason: string }[] }>>;

export async function runPreview(pool: pg.Pool, connections: ConnectionStore, connectionId: string, entities?: Entity[]): Promise<PreviewReport> {
  const activities = createSyncActivities({ pool, runtimeFor: createRuntimeCache(connections) });
  const started = await activities.startSync({ connectionId, entities });
  const report: PreviewReport = {};
  for (const entity of started.entities) {
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
      if (outcome.done) break;
      cursor = outcome.nextCursor;
    }
    report[entity] = line;
  }
  return report;
}
