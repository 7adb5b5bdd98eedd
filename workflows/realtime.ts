// Near-real-time: on a short schedule, read the notification feed and sync just the entities it names.
// The slower incremental pass remains the safety net for anything the feed misses. A run that found
// events, or failed, is recorded in sync_runs; the many empty ticks (every 30 s) are not.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SyncActivities } from '../activities/sync.ts';
import { rootMessage, type ActivityTimeouts } from './sync.ts';
import { alertsStep, type AlertRetry } from './alerts.ts';
import { inheritedPriority } from './priority.ts';

/** At most this many feed pages per run, so one run stays short; the next tick continues. */
const MAX_PAGES = 20;

export async function realtimeSyncWorkflow(input: { connectionId: string; activityTimeouts?: ActivityTimeouts; alertRetry?: AlertRetry }) {
  const { syncFromNotifications, recordRun } = proxyActivities<SyncActivities>({
    startToCloseTimeout: (input.activityTimeouts?.startToClose ?? '5 minutes') as '5 minutes',
    heartbeatTimeout: (input.activityTimeouts?.heartbeat ?? '1 minute') as '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
    ...inheritedPriority(),
  });
  const runId = `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  // The row is written only at the end (and only when the pass found work): it starts when the pass did.
  const startedAt = workflowInfo().startTime.toISOString();
  const totals = { events: 0, setAside: 0, records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, pages: 0 };
  try {
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const outcome = await syncFromNotifications({ connectionId: input.connectionId });
      totals.pages += 1;
      for (const key of ['events', 'setAside', 'records', 'created', 'updated', 'unchanged', 'failed', 'writeBacks'] as const) totals[key] += outcome[key];
      if (outcome.done) break;
    }
  } catch (error) {
    await recordRun({ runId, connectionId: input.connectionId, kind: 'realtime', status: 'failed', counts: totals, error: rootMessage(error), startedAt });
    throw error;
  }
  // After the sync, so an alert can link the CRM record the same events just created (workflows/alerts.ts).
  let alerts: Awaited<ReturnType<typeof alertsStep>> | { error: string };
  try {
    alerts = await alertsStep({ connectionId: input.connectionId, alertRetry: input.alertRetry });
  } catch (error) {
    alerts = { error: rootMessage(error) }; // alerts never fail the sync's run; the next run reads on
  }
  if (totals.events > 0 || totals.records > 0) await recordRun({ runId, connectionId: input.connectionId, kind: 'realtime', status: 'completed', counts: totals, startedAt });
  return { ...totals, alerts };
}
