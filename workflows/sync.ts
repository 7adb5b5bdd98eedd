// The sync, as the algorithm reads: for each entity in dependency order, page through the window
// (one activity per page), then retry the entity's due dead letters. Page data never enters the
// history: only counts and cursors do. Long runs continue as new when Temporal suggests it.
import { continueAsNew, defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PageCounts, SyncActivities, WireCursor } from '../activities/sync.ts';
import type { Entity } from '../mappings/types.ts';

const { startSync, syncEntityPage, retryDeadLetters } = proxyActivities<SyncActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

export type EntityProgress = PageCounts & { pages: number; cursor?: WireCursor; done: boolean };
export type SyncProgress = {
  kind: 'incremental' | 'backfill';
  connectionId: string;
  until?: string;
  entity?: Entity;
  entities: Partial<Record<Entity, EntityProgress>>;
  totals: PageCounts & { pages: number };
  finished: boolean;
};

export const progressQuery = defineQuery<SyncProgress>('progress');

export type SyncInput = {
  connectionId: string;
  entities?: Entity[];
  /** Backfill: the time range of lastUpdateTime to sync (inclusive); the end defaults to the start of the run. */
  from?: string;
  to?: string;
  resetCursors?: boolean;
  forgetLinks?: boolean;
  dryRun?: boolean;
  /** Set by continue-as-new: where the previous run stopped. */
  resume?: { until: string; pageSize: number; entities: Entity[]; index: number; cursor: WireCursor; progress: SyncProgress };
};

const zero = (): PageCounts => ({ records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0 });

function add(target: PageCounts, counts: PageCounts) {
  for (const key of Object.keys(target) as (keyof PageCounts)[]) target[key] += counts[key];
}

export async function incrementalSyncWorkflow(input: SyncInput): Promise<SyncProgress> {
  return runSync('incremental', input);
}

export async function backfillWorkflow(input: SyncInput): Promise<SyncProgress> {
  return runSync('backfill', input);
}

async function runSync(kind: SyncProgress['kind'], input: SyncInput): Promise<SyncProgress> {
  const progress: SyncProgress = input.resume?.progress ?? { kind, connectionId: input.connectionId, entities: {}, totals: { ...zero(), pages: 0 }, finished: false };
  setHandler(progressQuery, () => progress);

  let plan = input.resume;
  let starts: Partial<Record<Entity, WireCursor>> = {};
  if (!plan) {
    const started = await startSync({ connectionId: input.connectionId, entities: input.entities, resetCursors: input.resetCursors, forgetLinks: input.forgetLinks });
    const until = kind === 'backfill' && input.to ? input.to : started.until;
    starts = kind === 'backfill' ? Object.fromEntries(started.entities.map((entity) => [entity, { time: input.from ?? new Date(0).toISOString() }])) : started.starts;
    plan = { until, pageSize: started.pageSize, entities: started.entities, index: 0, cursor: starts[started.entities[0]!] ?? { time: new Date(0).toISOString() }, progress };
  }
  progress.until = plan.until;

  for (let index = plan.index; index < plan.entities.length; index += 1) {
    const entity = plan.entities[index]!;
    let cursor = index === plan.index ? plan.cursor : (starts[entity] ?? { time: input.from ?? new Date(0).toISOString() });
    const state: EntityProgress = progress.entities[entity] ?? { ...zero(), pages: 0, done: false };
    progress.entities[entity] = state;
    progress.entity = entity;
    while (!state.done) {
      const outcome = await syncEntityPage({
        connectionId: input.connectionId,
        entity,
        cursor,
        until: plan.until,
        pageSize: plan.pageSize,
        advanceStoredCursor: kind === 'incremental' && !input.dryRun,
        dryRun: input.dryRun,
      });
      const { nextCursor, done, crmWriteCalls: _calls, rejections: _rejections, ...counts } = outcome;
      add(state, counts);
      add(progress.totals, counts);
      state.pages += 1;
      progress.totals.pages += 1;
      state.cursor = nextCursor;
      state.done = done;
      cursor = nextCursor;
      if (!done && workflowInfo().continueAsNewSuggested) {
        // The same workflow type continues: incremental and backfill take the same input.
        await continueAsNew<typeof incrementalSyncWorkflow>({ ...input, resume: { ...plan, index, cursor, progress } });
      }
    }
    if (!input.dryRun) {
      const retried = await retryDeadLetters({ connectionId: input.connectionId, entity });
      add(state, { ...retried, records: 0 });
      add(progress.totals, { ...retried, records: 0 });
    }
  }
  progress.finished = true;
  progress.entity = undefined;
  return progress;
}
