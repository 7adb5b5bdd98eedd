// Co-sell from the CRM, as the algorithm reads: fix the window end, then page through the Opportunities
// changed since the stored cursor (one activity per page), each page turning shared Opportunities into
// referrals exactly once. A run that shared anything, or failed, is recorded in sync_runs.
import { ContinueAsNew, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CosellActivities, CosellCounts } from '../activities/cosell.ts';
import type { SyncActivities, WireCursor } from '../activities/sync.ts';
import { rootMessage, type ActivityTimeouts } from './sync.ts';

export type CosellInput = { connectionId: string; activityTimeouts?: ActivityTimeouts; resume?: { until: string; pageSize: number; cursor: WireCursor; totals: CosellCounts; runId: string } };

export async function cosellWorkflow(input: CosellInput): Promise<CosellCounts & { pages: number }> {
  const { startCosell, syncOpportunityReferrals, recordRun } = proxyActivities<CosellActivities & Pick<SyncActivities, 'recordRun'>>({
    startToCloseTimeout: (input.activityTimeouts?.startToClose ?? '10 minutes') as '10 minutes',
    heartbeatTimeout: (input.activityTimeouts?.heartbeat ?? '1 minute') as '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const runId = input.resume?.runId ?? `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  const totals: CosellCounts & { pages: number } = { opportunities: 0, shared: 0, created: 0, adopted: 0, refused: 0, unchanged: 0, writeBacks: 0, pages: 0, ...input.resume?.totals };
  try {
    let plan = input.resume;
    if (!plan) {
      const started = await startCosell({ connectionId: input.connectionId });
      if (!started.enabled) return totals;
      plan = { until: started.until, pageSize: started.pageSize, cursor: started.start, totals, runId };
    }
    let cursor = plan.cursor;
    for (;;) {
      const { nextCursor, done, ...counts } = await syncOpportunityReferrals({ connectionId: input.connectionId, cursor, until: plan.until, pageSize: plan.pageSize });
      for (const key of Object.keys(counts) as (keyof CosellCounts)[]) totals[key] += counts[key];
      totals.pages += 1;
      cursor = nextCursor;
      if (done) break;
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof cosellWorkflow>({ ...input, resume: { ...plan, cursor, totals, runId } });
    }
  } catch (error) {
    if (!(error instanceof ContinueAsNew)) await recordRun({ runId, connectionId: input.connectionId, kind: 'cosell', status: 'failed', counts: totals, error: rootMessage(error) });
    throw error;
  }
  if (totals.shared > 0 && totals.shared > totals.unchanged) await recordRun({ runId, connectionId: input.connectionId, kind: 'cosell', status: 'completed', counts: totals });
  return totals;
}
