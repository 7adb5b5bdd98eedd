// One Temporal Schedule per connection (overlap SKIP, pausable) and the backfill workflow with a
// deterministic id, so a second trigger joins the running backfill instead of starting another.
// Scheduled passes start with a high priority and backfills with a low one, each with the connection
// as its fairness key (temporal/sync-priority.ts), so one connection's backfill cannot crowd out the
// other connections' passes on a shared fleet; their activities inherit it.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Entity } from '../mappings/types.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncInput, SyncProgress } from '../workflows/sync.ts';
import { backfillPriority, scheduledPriority } from './sync-priority.ts';

export const syncScheduleId = (connectionId: string) => `crm-sync-connection-${connectionId}`;
export const realtimeScheduleId = (connectionId: string) => `crm-sync-realtime-${connectionId}`;
export const reconcileScheduleId = (connectionId: string) => `crm-sync-reconcile-${connectionId}`;
export const cosellScheduleId = (connectionId: string) => `crm-sync-cosell-${connectionId}`;

/** Every schedule a connection has (pause and resume act on all of them). */
export const connectionScheduleIds = (connectionId: string) => [syncScheduleId(connectionId), realtimeScheduleId(connectionId), reconcileScheduleId(connectionId), cosellScheduleId(connectionId)];

/**
 * The schedules of a connection: the full incremental pass, the near-real-time feed reader, the
 * reconciliation pass (everything re-read, only what differs written: the safety net for missed changes)
 * and co-sell from the CRM (shared Opportunities become referrals).
 */
/** `paused`: schedules made now start paused (connect --paused); existing ones keep their state. */
export async function ensureConnectionSchedules(client: Client, options: { connectionId: string; every: string; realtimeEvery: string; reconcileEvery?: string; cosellEvery?: string; taskQueue: string; paused?: boolean }) {
  return {
    incremental: await ensureSchedule(client, syncScheduleId(options.connectionId), WORKFLOW_TYPES.incrementalSync, `sync-${options.connectionId}`, options.every, options),
    realtime: await ensureSchedule(client, realtimeScheduleId(options.connectionId), WORKFLOW_TYPES.realtimeSync, `realtime-${options.connectionId}`, options.realtimeEvery, options),
    reconcile: await ensureSchedule(client, reconcileScheduleId(options.connectionId), WORKFLOW_TYPES.reconcile, `reconcile-${options.connectionId}`, options.reconcileEvery ?? '24h', options),
    cosell: await ensureSchedule(client, cosellScheduleId(options.connectionId), WORKFLOW_TYPES.cosell, `cosell-${options.connectionId}`, options.cosellEvery ?? '1m', options),
  };
}

export async function ensureSyncSchedule(client: Client, options: { connectionId: string; every: string; taskQueue: string }): Promise<'created' | 'updated'> {
  return ensureSchedule(client, syncScheduleId(options.connectionId), WORKFLOW_TYPES.incrementalSync, `sync-${options.connectionId}`, options.every, options);
}

async function ensureSchedule(client: Client, scheduleId: string, workflowType: string, workflowId: string, every: string, options: { connectionId: string; taskQueue: string; paused?: boolean }): Promise<'created' | 'updated'> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType,
    workflowId,
    taskQueue: options.taskQueue,
    args: [{ connectionId: options.connectionId } satisfies SyncInput],
    // The SDK sends a schedule action's priority (schedule-helpers' encodeScheduleAction) though its
    // create type does not name it; the update below carries it to schedules made before it existed.
    priority: scheduledPriority(options.connectionId),
  };
  const spec = { intervals: [{ every }] };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { connectionId: options.connectionId },
      ...(options.paused && { state: { paused: true, note: 'Created paused (crm-sync connect --paused): crm-sync resume starts it' } }),
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
    return 'updated';
  }
}

/** Run the scheduled sync now; SKIP explicitly, since trigger() defaults to ALLOW_ALL. */
export async function triggerSync(client: Client, connectionId: string): Promise<void> {
  await client.schedule.getHandle(syncScheduleId(connectionId)).trigger(ScheduleOverlapPolicy.SKIP);
}

export type BackfillRequest = { connectionId: string; entities: Entity[]; from?: string; to?: string; resetCursors?: boolean; forgetLinks?: boolean };

export function backfillWorkflowId(request: BackfillRequest): string {
  const entities = [...request.entities].sort().join('+');
  return `backfill-${request.connectionId}-${entities}-${request.from ?? 'beginning'}-${request.to ?? 'now'}`;
}

export async function startBackfill(client: Client, taskQueue: string, request: BackfillRequest): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return client.workflow.start(WORKFLOW_TYPES.backfill, {
    taskQueue,
    workflowId: backfillWorkflowId(request),
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [request satisfies SyncInput],
    priority: backfillPriority(request.connectionId),
  });
}

export async function readProgress(handle: WorkflowHandle): Promise<SyncProgress> {
  return handle.query<SyncProgress>('progress');
}
