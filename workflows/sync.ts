// The sync, as the algorithm reads: for each entity in dependency order, page through the window
// (one activity per batch), then retry the entity's due dead letters. Page data never enters the
// history: only counts and cursors do. Long runs continue as new when Temporal suggests it. A backfill
// or reconciliation pass leases its entities, so the scheduled incremental pass leaves them to it.
import { redactText } from '../store/redact.ts';
import { CancellationScope, ContinueAsNew, continueAsNew, defineQuery, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PageCounts, PassLease, SyncActivities, WireCursor } from '../activities/sync.ts';
import type { Entity } from '../mappings/types.ts';
import { inheritedPriority } from './priority.ts';

/** Activity timeouts: heartbeats every few seconds keep a long batch alive; a silent one is retried. */
export type ActivityTimeouts = { heartbeat?: string; startToClose?: string };

function syncActivities(timeouts: ActivityTimeouts = {}) {
  return proxyActivities<SyncActivities>({
    startToCloseTimeout: (timeouts.startToClose ?? '15 minutes') as '15 minutes',
    heartbeatTimeout: (timeouts.heartbeat ?? '2 minutes') as '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
    ...inheritedPriority(),
  });
}

/** `expected`: the records this entity's pass will read, estimated from the service's counts (for progress bars). */
export type EntityProgress = PageCounts & { pages: number; cursor?: WireCursor; done: boolean; skippedFor?: string; expected?: number };
export type SyncKind = 'incremental' | 'backfill' | 'reconcile';
export type SyncProgress = {
  kind: SyncKind;
  connectionId: string;
  until?: string;
  entity?: Entity;
  entities: Partial<Record<Entity, EntityProgress>>;
  totals: PageCounts & { pages: number };
  finished: boolean;
  /** The entities of the run, in order (progress shows "2 of 5"). */
  planned?: Entity[];
  /** The sync_runs row of this logical run. */
  runId?: string;
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
  /** Tuning (and tests): the activities' heartbeat and start-to-close timeouts. */
  activityTimeouts?: ActivityTimeouts;
  /** Set by continue-as-new: the sync_runs row and where the previous run stopped. */
  runId?: string;
  resume?: { until: string; pageSize: number; entities: Entity[]; starts: Partial<Record<Entity, WireCursor>>; index: number; cursor: WireCursor; progress: SyncProgress };
};

const zero = (): PageCounts => ({ records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0 });

const COUNT_KEYS = ['records', 'created', 'updated', 'unchanged', 'failed', 'writeBacks'] as const satisfies readonly (keyof PageCounts)[];

function add(target: PageCounts, counts: PageCounts) {
  for (const key of COUNT_KEYS) target[key] += counts[key] ?? 0;
}

export async function incrementalSyncWorkflow(input: SyncInput): Promise<SyncProgress> {
  return runSync('incremental', input);
}

export async function backfillWorkflow(input: SyncInput): Promise<SyncProgress> {
  return runSync('backfill', input);
}

/**
 * The reconciliation pass (its own schedule, daily by default): everything re-read from the beginning,
 * only what differs from what the CRM was last given is written. It catches what no change stamp shows
 * (a term that changed on its own, §2.2) and anything a missed event or a bug left behind; when
 * nothing differs it costs no CRM call.
 */
export async function reconcileWorkflow(input: SyncInput): Promise<SyncProgress> {
  return runSync('reconcile', { ...input, from: undefined, to: undefined, resetCursors: false, forgetLinks: false });
}

async function runSync(kind: SyncKind, input: SyncInput): Promise<SyncProgress> {
  const { startSync, recordRun, releaseEntities } = syncActivities(input.activityTimeouts);
  const progress: SyncProgress = input.resume?.progress ?? { kind, connectionId: input.connectionId, entities: {}, totals: { ...zero(), pages: 0 }, finished: false };
  setHandler(progressQuery, () => progress);

  let plan = input.resume;
  // One sync_runs row per logical run: continue-as-new keeps the first run's id.
  const runId = input.resume && input.runId ? input.runId : `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  progress.runId = runId;
  if (!plan && !input.dryRun) await recordRun({ runId, connectionId: input.connectionId, kind, status: 'running' });
  try {
    if (!plan) {
      const started = await startSync({ connectionId: input.connectionId, entities: input.entities, resetCursors: input.resetCursors, forgetLinks: input.forgetLinks });
      const until = kind === 'backfill' && input.to ? input.to : started.until;
      const starts: Partial<Record<Entity, WireCursor>> =
        kind === 'incremental' ? started.starts : Object.fromEntries(started.entities.map((entity) => [entity, { time: input.from ?? new Date(0).toISOString() }]));
      plan = { until, pageSize: started.pageSize, entities: started.entities, starts, index: 0, cursor: starts[started.entities[0]!] ?? { time: new Date(0).toISOString() }, progress };
    }
    progress.until = plan.until;
    await syncEntities(kind, input, plan, progress);
  } catch (error) {
    if (!isContinueAsNew(error) && plan && kind !== 'incremental' && !input.dryRun) {
      await CancellationScope.nonCancellable(() => releaseEntities({ connectionId: input.connectionId, entities: plan!.entities, lease: passLease(input) }));
    }
    if (!input.dryRun && !isContinueAsNew(error)) {
      // Recorded even when the run is being cancelled: the row must not stay 'running'.
      await CancellationScope.nonCancellable(() =>
        recordRun({ runId, connectionId: input.connectionId, kind, status: isCancellation(error) ? 'cancelled' : 'failed', counts: runCounts(progress), error: rootMessage(error) }),
      );
    }
    throw error;
  }
  progress.finished = true;
  progress.entity = undefined;
  if (kind !== 'incremental' && !input.dryRun) await releaseEntities({ connectionId: input.connectionId, entities: plan.entities, lease: passLease(input) });
  if (!input.dryRun) await recordRun({ runId, connectionId: input.connectionId, kind, status: 'completed', counts: runCounts(progress) });
  return progress;
}

/** What a run's row keeps: its totals and each entity's counts (without cursors), for `crm-sync runs` and the console. */
function runCounts(progress: SyncProgress) {
  const entities: Record<string, PageCounts & { pages: number }> = {};
  for (const [entity, { cursor: _cursor, done: _done, skippedFor: _skipped, expected: _expected, ...counts }] of Object.entries(progress.entities)) entities[entity] = counts as PageCounts & { pages: number };
  return { ...progress.totals, entities };
}

/** The innermost reason ("Activity task failed" says nothing; the activity's own failure does). */
export function rootMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown };
  while (current.cause && (current.cause as { message?: string }).message) current = current.cause as typeof current;
  // Redacted here, in the workflow, so the run's recorded error carries no secret into the history either (pure: replays alike).
  return redactText(current.message ?? String(error));
}

/** A pass's lease: held by its workflow id, covering its time range from `from`. */
function passLease(input: SyncInput, entities?: Entity[]): PassLease {
  return { holder: workflowInfo().workflowId, from: input.from ?? new Date(0).toISOString(), entities };
}

function isContinueAsNew(error: unknown): boolean {
  return error instanceof ContinueAsNew;
}

async function syncEntities(kind: SyncKind, input: SyncInput, plan: NonNullable<SyncInput['resume']>, progress: SyncProgress): Promise<void> {
  const { syncEntityPage, retryDeadLetters } = syncActivities(input.activityTimeouts);
  for (let index = plan.index; index < plan.entities.length; index += 1) {
    const entity = plan.entities[index]!;
    let cursor = index === plan.index ? plan.cursor : (plan.starts[entity] ?? { time: input.from ?? new Date(0).toISOString() });
    const state: EntityProgress = progress.entities[entity] ?? { ...zero(), pages: 0, done: false };
    progress.entities[entity] = state;
    progress.entity = entity;
    progress.planned = plan.entities;
    while (!state.done) {
      const outcome = await syncEntityPage({
        connectionId: input.connectionId,
        entity,
        cursor,
        until: plan.until,
        pageSize: plan.pageSize,
        advanceStoredCursor: kind === 'incremental' && !input.dryRun,
        dryRun: input.dryRun,
        ...(kind !== 'incremental' && !input.dryRun && { lease: passLease(input, plan.entities.slice(index)) }),
      });
      const { nextCursor, done, crmWriteCalls: _calls, rejections: _rejections, pagesRead, skippedFor, remaining, ...counts } = outcome;
      if (skippedFor) state.skippedFor = skippedFor;
      add(state, counts);
      add(progress.totals, counts);
      // Commerce pages, not activities (older histories carry no pagesRead: one page each).
      state.pages += pagesRead ?? 1;
      progress.totals.pages += pagesRead ?? 1;
      state.cursor = nextCursor;
      state.done = done;
      if (remaining !== undefined) state.expected = state.records + remaining;
      cursor = nextCursor;
      if (!done && workflowInfo().continueAsNewSuggested) {
        // The same workflow type continues: incremental and backfill take the same input.
        await continueAsNew<typeof incrementalSyncWorkflow>({ ...input, runId: progress.runId, resume: { ...plan, index, cursor, progress } });
      }
    }
    if (!input.dryRun) {
      const retried = await retryDeadLetters({ connectionId: input.connectionId, entity });
      add(state, { ...retried, records: 0 });
      add(progress.totals, { ...retried, records: 0 });
    }
  }
}
