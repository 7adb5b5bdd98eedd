// Temporal Schedules owned by this project. Creating them is idempotent: an existing schedule is
// updated to the configured interval and task queue, never duplicated, and a paused one stays paused.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { WORKFLOW_TYPES } from '../workflows/names.ts';

export const HEARTBEAT_SCHEDULE_ID = 'crm-sync-heartbeat';

export async function ensureHeartbeatSchedule(client: Client, options: { taskQueue: string; every: string }): Promise<'created' | 'updated'> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: WORKFLOW_TYPES.heartbeat,
    workflowId: HEARTBEAT_SCHEDULE_ID,
    taskQueue: options.taskQueue,
  };
  const spec = { intervals: [{ every: options.every }] };
  try {
    await client.schedule.create({
      scheduleId: HEARTBEAT_SCHEDULE_ID,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { purpose: 'Proves schedule -> worker -> PostgreSQL works: one heartbeat row per tick' },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(HEARTBEAT_SCHEDULE_ID).update((previous) => ({ ...previous, spec, action }));
    return 'updated';
  }
}
