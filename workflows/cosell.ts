// Co-sell, as the algorithm reads: inbound referrals from partners become Opportunities first; then fix
// the window end, and for each CRM-to-commerce flow
// the connection runs (shared opportunities -> referrals, private-offer requests -> draft offers), page
// through the CRM records changed since its stored cursor, one activity per page. A run that made or
// refused anything, or failed, is recorded in sync_runs. Every loop (inbound pages, flow pages, stage
// pages) continues as new when Temporal suggests it, carrying where it stands and the totals so far.
import { ContinueAsNew, continueAsNew, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CrmFlowCounts, CrmToCommerceActivities } from '../activities/crm-to-commerce.ts';
import type { StageCounts, StageSyncActivities } from '../activities/stage-sync.ts';
import type { CosellWindowActivities } from '../activities/cosell-window.ts';
import type { SyncActivities, WireCursor } from '../activities/sync.ts';
import { rootMessage, type ActivityTimeouts } from './sync.ts';
import { inheritedPriority } from './priority.ts';

/** Where the inbound pass stands (absent: done, or a run started before it could be carried). */
type InboundPlan = { until: string; pageSize: number; cursor: WireCursor };
/** Where the stage pass stands: its window, the side being read and that side's cursor. */
type StagesPlan = { starts: Record<'crm' | 'commerce', WireCursor>; until: string; side: 'crm' | 'commerce'; cursor: WireCursor; first: boolean };
/** One read of the CRM window for every co-sell pass (issue #24 item 9): where it stands, and the stage pass's window. */
type SharedPlan = { cursor: WireCursor; first: boolean; stages?: { starts: Record<'crm' | 'commerce', WireCursor>; until: string } };
type Plan = { until: string; pageSize: number; flows: string[]; starts: Record<string, WireCursor>; index: number; cursor: WireCursor; stages: boolean; inbound?: InboundPlan; stagesAt?: StagesPlan; shared?: SharedPlan };
export type CosellTotals = CrmFlowCounts & { pages: number; flows: Record<string, CrmFlowCounts>; inbound: { created: number; failed: number; writeBacks: number }; stages: StageCounts };
export type CosellInput = { connectionId: string; activityTimeouts?: ActivityTimeouts; resume?: { plan: Plan; totals: CosellTotals; runId: string; startedAt?: string } };

const zero = (): CrmFlowCounts => ({ records: 0, asking: 0, created: 0, adopted: 0, refused: 0, unchanged: 0, writeBacks: 0, advanced: 0 });
/** Continuing as new inside the inbound and stage loops came later than inside the flow loop: older histories never did. */
const CONTINUE_IN_EVERY_LOOP = 'cosell-continue-as-new-in-every-loop';
/** One read of the CRM window for every pass came later too (issue #24 item 9). */
const READ_ONCE = 'cosell-read-once-for-every-pass';

/** Where one read for every pass starts: the earliest pass's time, inclusively (each pass's own id and locator are its own). */
function earliest(starts: WireCursor[]): WireCursor {
  return { time: starts.map((start) => start.time).sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? new Date(0).toISOString() };
}

/** Refused co-sell write-backs retried in the run came later too. */
const RETRY_WRITE_BACKS = 'cosell-retry-write-backs';

export async function cosellWorkflow(input: CosellInput): Promise<CosellTotals> {
  const { startCrmFlows, syncCrmFlowPage, syncCosellWindowPage, retryCosellWriteBacks, recordRun, startSync, syncEntityPage, retryDeadLetters, startStages, syncStagePage } = proxyActivities<CrmToCommerceActivities & SyncActivities & StageSyncActivities & CosellWindowActivities>({
    startToCloseTimeout: (input.activityTimeouts?.startToClose ?? '10 minutes') as '10 minutes',
    heartbeatTimeout: (input.activityTimeouts?.heartbeat ?? '1 minute') as '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
    ...inheritedPriority(),
  });
  const runId = input.resume?.runId ?? `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  // Its row is written only at the end: it starts when the pass did, the chain's first run, carried across
  // continue-as-new (a continued run's own startTime is its own start).
  const startedAt = input.resume?.startedAt ?? workflowInfo().startTime.toISOString();
  const totals: CosellTotals = input.resume?.totals ?? { ...zero(), pages: 0, flows: {}, inbound: { created: 0, failed: 0, writeBacks: 0 }, stages: { changes: 0, pairs: 0, toCrm: 0, toCommerce: 0, queued: 0, waiting: 0, inStep: 0, crmRefused: 0 } };
  /** Continues as new from `at` when Temporal suggests it (never in a replay of a history made before this was possible). */
  const continueIfSuggested = async (at: Plan) => {
    if (workflowInfo().continueAsNewSuggested && patched(CONTINUE_IN_EVERY_LOOP)) await continueAsNew<typeof cosellWorkflow>({ ...input, resume: { plan: at, totals, runId, startedAt } });
  };
  try {
    let plan = input.resume?.plan;
    if (!plan) {
      const started = await startCrmFlows({ connectionId: input.connectionId });
      plan = { until: started.until, pageSize: started.pageSize, flows: started.flows, starts: started.starts, index: 0, cursor: started.starts[started.flows[0] ?? ''] ?? { time: new Date(0).toISOString() }, stages: started.stages };
      if (started.inbound) await syncInboundReferrals(plan);
      if (plan.flows.length > 0 && patched(READ_ONCE)) {
        const stages = plan.stages ? await startStages({ connectionId: input.connectionId }) : undefined;
        plan.shared = { cursor: earliest([...plan.flows.map((flow) => plan!.starts[flow]!), ...(stages ? [stages.starts.crm] : [])]), first: true, stages };
      }
    } else if (plan.inbound) await syncInboundReferrals(plan);
    if (plan.shared && plan.index < plan.flows.length) await readOnceForEveryPass(plan, plan.shared);
    for (let index = plan.index; index < plan.flows.length; index += 1) {
      const flow = plan.flows[index]!;
      let cursor = index === plan.index ? plan.cursor : plan.starts[flow]!;
      const mine = (totals.flows[flow] ??= zero());
      for (;;) {
        const { nextCursor, done, ...counts } = await syncCrmFlowPage({ connectionId: input.connectionId, flow, cursor, until: plan.until, pageSize: plan.pageSize });
        for (const key of Object.keys(counts) as (keyof CrmFlowCounts)[]) {
          totals[key] = (totals[key] ?? 0) + (counts[key] ?? 0);
          mine[key] = (mine[key] ?? 0) + (counts[key] ?? 0);
        }
        totals.pages += 1;
        cursor = nextCursor;
        if (done) break;
        if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof cosellWorkflow>({ ...input, resume: { plan: { ...plan, index, cursor }, totals, runId, startedAt } });
      }
    }
    // Write-backs the CRM refused in earlier runs, due again (issue #24 item 7); not again in a run continued in its stage pass.
    if (!plan.stagesAt && patched(RETRY_WRITE_BACKS)) totals.writeBacks += (await retryCosellWriteBacks({ connectionId: input.connectionId })).writeBacks;
    // Stages both ways, last: the pairs made above are in step from their first run.
    if (plan.stages) {
      const resumed = plan.stagesAt;
      const stagesPlan = resumed ?? plan.shared?.stages ?? (await startStages({ connectionId: input.connectionId }));
      // A run continued on the commerce side has finished the CRM side; so has a run that read its window once for every pass.
      const sides = (['crm', 'commerce'] as const).filter((side) => (resumed?.side !== 'commerce' && !plan.shared) || side === 'commerce');
      for (const side of sides) {
        const resuming = resumed?.side === side;
        let cursor = resuming ? resumed.cursor : stagesPlan.starts[side];
        for (let first = resuming ? resumed.first : true; ; first = false) {
          const { nextCursor, done, ...counts } = await syncStagePage({ connectionId: input.connectionId, side, cursor, until: stagesPlan.until, pageSize: plan.pageSize, first });
          for (const key of Object.keys(counts) as (keyof StageCounts)[]) totals.stages[key] = (totals.stages[key] ?? 0) + (counts[key] ?? 0);
          cursor = nextCursor;
          if (done) break;
          await continueIfSuggested({ ...plan, index: plan.flows.length, stagesAt: { starts: stagesPlan.starts, until: stagesPlan.until, side, cursor, first: false } });
        }
      }
    }
  } catch (error) {
    if (!(error instanceof ContinueAsNew)) await recordRun({ runId, connectionId: input.connectionId, kind: 'cosell', status: 'failed', counts: totals, error: rootMessage(error), startedAt });
    throw error;
  }
  if (totals.created + totals.adopted + totals.refused + (totals.advanced ?? 0) + totals.inbound.created + totals.stages.toCrm + totals.stages.toCommerce + totals.stages.queued > 0) await recordRun({ runId, connectionId: input.connectionId, kind: 'cosell', status: 'completed', counts: totals, startedAt });
  return totals;

  /** Every co-sell pass on one read of the CRM window, page by page (activities/cosell-window.ts); then the flows' loop has nothing left. */
  async function readOnceForEveryPass(plan: Plan, shared: SharedPlan) {
    for (;;) {
      const { nextCursor, done, flows, stages } = await syncCosellWindowPage({ connectionId: input.connectionId, flows: plan.flows, stages: Boolean(shared.stages), cursor: shared.cursor, until: plan.until, pageSize: plan.pageSize, first: shared.first });
      for (const [flow, counts] of Object.entries(flows)) {
        const mine = (totals.flows[flow] ??= zero());
        for (const key of Object.keys(counts) as (keyof CrmFlowCounts)[]) {
          totals[key] = (totals[key] ?? 0) + (counts[key] ?? 0);
          mine[key] = (mine[key] ?? 0) + (counts[key] ?? 0);
        }
      }
      if (stages) for (const key of Object.keys(stages) as (keyof StageCounts)[]) totals.stages[key] = (totals.stages[key] ?? 0) + (stages[key] ?? 0);
      totals.pages += 1;
      shared.cursor = nextCursor;
      shared.first = false;
      if (done) break;
      await continueIfSuggested({ ...plan, shared: { ...shared } });
    }
    plan.index = plan.flows.length;
  }

  /** Inbound referrals without an Opportunity become Opportunities (the commerce-to-CRM page path). */
  async function syncInboundReferrals(plan: Plan) {
    const entity = 'inbound-referral' as const;
    let at = plan.inbound;
    if (!at) {
      const started = await startSync({ connectionId: input.connectionId, entities: [entity] });
      at = { until: started.until, pageSize: started.pageSize, cursor: started.starts[entity]! };
    }
    for (let cursor = at.cursor; ; ) {
      const outcome = await syncEntityPage({ connectionId: input.connectionId, entity, cursor, until: at.until, pageSize: at.pageSize, advanceStoredCursor: true });
      totals.inbound.created += outcome.created;
      totals.inbound.failed += outcome.failed;
      totals.inbound.writeBacks += outcome.writeBacks;
      if (outcome.done) break;
      cursor = outcome.nextCursor;
      await continueIfSuggested({ ...plan, inbound: { ...at, cursor } });
    }
    delete plan.inbound;
    const retried = await retryDeadLetters({ connectionId: input.connectionId, entity });
    totals.inbound.created += retried.created;
    totals.inbound.writeBacks += retried.writeBacks;
  }
}
