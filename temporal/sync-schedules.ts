// One Temporal Schedule per connection (overlap SKIP, pausable) and the backfill workflow with a
// deterministic id, so a second trigger joins the running backfill instead of starting another.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Entity } from '../mappings/types.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncInput, SyncProgress } from '../workflows/sync.ts';

export const syncScheduleId = (connectionId: string) => `crm-sync-connection-${connectionId}`;

export async function ensureSyncSchedule(client: Client, options: { connectionId: string; every: string; taskQueue: string }): Promise<'created' | 'updated'> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: WORKFLOW_TYPES.incrementalSync,
    workflowId: `sync-${options.connectionId}`,
    taskQueue: options.taskQueue,
    args: [{ connectionId: options.connectionId } satisfies SyncInput],
  };
  const spec = { intervals: [{ every: options.every }] };
  try {
    await client.schedule.create({
      scheduleId: syncScheduleId(options.connectionId),
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { connectionId: options.connectionId },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(syncScheduleId(options.connectionId)).update((previous) => ({ ...previous, spec, action }));
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

export async function startBackfill(client: Client, taskQueue: string, request: BackfillRequest): Promise<WorkflowHandle> {
  return client.workflow.start(WORKFLOW_TYPES.backfill, {
    taskQueue,
    workflowId: backfillWorkflowId(request),
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [request satisfies SyncInput],
  });
}

export async function readProgress(handle: WorkflowHandle): Promise<SyncProgress> {
  return handle.query<SyncProgress>('progress');
}
