// Runs once per scheduled tick and records one heartbeat row: schedule -> workflow -> activity -> PostgreSQL.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { HeartbeatActivities } from '../activities/heartbeat.ts';

const { recordHeartbeat } = proxyActivities<HeartbeatActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export async function heartbeatWorkflow(): Promise<{ beatId: string; recorded: boolean }> {
  const { workflowId, runStartTime } = workflowInfo();
  // The scheduled workflow id is unique per tick, so it is the natural idempotency key.
  return recordHeartbeat({ beatId: workflowId, workflowStart: runStartTime.toISOString() });
}
