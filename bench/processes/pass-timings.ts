// How a connection's scheduled passes actually ran during a benchmark, for bench/fairness.ts: what its
// schedules took, skipped (overlap SKIP) or missed (catch-up window), how long each pass took from its
// start to its close, and how much of that its workflow and activity tasks waited in the task queue
// (from each pass's history) rather than ran. sync_runs alone cannot say it: the notification and co-sell
// passes write their row once, at the end (started_at is the end), and not at all when they found nothing.
// A module, not a benchmark.
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { cosellScheduleId, realtimeScheduleId, reconcileScheduleId, syncScheduleId } from '../../temporal/sync-schedules.ts';

/** The kinds as sync_runs names them, with the schedule that starts each. */
const SCHEDULES = { incremental: syncScheduleId, realtime: realtimeScheduleId, reconcile: reconcileScheduleId, cosell: cosellScheduleId } as const;
export type PassKind = keyof typeof SCHEDULES;

/** One pass as Temporal ran it, in milliseconds since the epoch; queue and run sums are over its tasks. */
export type Pass = {
  kind: PassKind;
  workflowId: string;
  runId: string;
  status: string;
  startMs: number;
  closeMs: number | null;
  /** Time its activity tasks waited to be picked up (scheduled -> started), summed over the pass. */
  activityQueueMs?: number;
  /** Time its activity tasks ran (started -> closed), summed. */
  activityRunMs?: number;
  /** Time its workflow tasks waited to be picked up, summed. */
  workflowQueueMs?: number;
  activities?: number;
  /** Activity attempts beyond the first (each retry is time the change waits). */
  retries?: number;
  /** Its sync_runs row's counts, when it wrote one (a notification pass that found nothing does not). */
  counts?: Record<string, unknown>;
};

type Timestamp = { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined;
const ms = (ts: Timestamp): number => (ts ? (typeof ts.seconds === 'number' ? ts.seconds : (ts.seconds?.toNumber() ?? 0)) * 1000 + (ts.nanos ?? 0) / 1e6 : NaN);
const seconds = (value: number) => Number((value / 1000).toFixed(1));

/** p50 / p95 / max (nearest rank) of `values` in milliseconds, as seconds. */
function spread(values: number[]) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0 };
  const at = (share: number) => seconds(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!);
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: at(1) };
}

/** Task waits and run times from a pass's history. */
async function historyFigures(client: Client, pass: Pass): Promise<void> {
  const { events } = await client.workflow.getHandle(pass.workflowId, pass.runId).fetchHistory();
  const scheduled = new Map<string, number>();
  const started = new Map<string, number>();
  let activityQueueMs = 0;
  let activityRunMs = 0;
  let workflowQueueMs = 0;
  let activities = 0;
  let retries = 0;
  let workflowTaskScheduled = NaN;
  for (const event of events ?? []) {
    const at = ms(event.eventTime as Timestamp);
    const id = String(event.eventId);
    if (event.workflowTaskScheduledEventAttributes) workflowTaskScheduled = at;
    else if (event.workflowTaskStartedEventAttributes && Number.isFinite(workflowTaskScheduled)) workflowQueueMs += at - workflowTaskScheduled;
    else if (event.activityTaskScheduledEventAttributes) scheduled.set(id, at);
    else if (event.activityTaskStartedEventAttributes) {
      const attributes = event.activityTaskStartedEventAttributes;
      started.set(String(attributes.scheduledEventId), at);
      // An activity's started event is written when it closes, with the time of its last attempt's start:
      // earlier attempts and their back-off are inside scheduled -> started.
      activityQueueMs += at - (scheduled.get(String(attributes.scheduledEventId)) ?? at);
      retries += Math.max(0, (attributes.attempt ?? 1) - 1);
      activities += 1;
    } else {
      const closed = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
      if (closed) activityRunMs += at - (started.get(String(closed.scheduledEventId)) ?? at);
    }
  }
  Object.assign(pass, { activityQueueMs, activityRunMs, workflowQueueMs, activities, retries });
}

/** Runs `work` over `items`, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/**
 * A connection's passes since `since`: every scheduled pass Temporal ran (with its history's task waits
 * for the kinds in `withHistory`), joined to its sync_runs row when it wrote one, and its schedules' counts.
 */
export async function connectionPasses(options: { client: Client; pool: pg.Pool; connectionId: string; since: Date; withHistory?: PassKind[] }) {
  const { client, pool, connectionId, since } = options;
  const passes: Pass[] = [];
  const schedules: Record<string, { actionsTaken: number; skippedOverlap: number; missedCatchupWindow: number; recentStartLagSeconds: ReturnType<typeof spread> }> = {};
  for (const [kind, scheduleIdOf] of Object.entries(SCHEDULES) as [PassKind, (id: string) => string][]) {
    const scheduleId = scheduleIdOf(connectionId);
    const described = await client.schedule.getHandle(scheduleId).describe();
    schedules[kind] = {
      actionsTaken: described.info.numActionsTaken,
      skippedOverlap: described.info.numActionsSkippedOverlap,
      missedCatchupWindow: described.info.numActionsMissedCatchupWindow,
      // Only the last 10 actions are kept by the server: how late the schedule started them.
      recentStartLagSeconds: spread(described.info.recentActions.map((action) => action.takenAt.getTime() - action.scheduledAt.getTime())),
    };
    const query = `TemporalScheduledById = '${scheduleId}' AND StartTime >= '${since.toISOString()}'`;
    for await (const execution of client.workflow.list({ query })) {
      passes.push({ kind, workflowId: execution.workflowId, runId: execution.runId, status: execution.status.name, startMs: execution.startTime.getTime(), closeMs: execution.closeTime?.getTime() ?? null });
    }
  }
  passes.sort((a, b) => a.startMs - b.startMs);
  const { rows } = await pool.query(`SELECT id, counts FROM sync_runs WHERE connection_id = $1 AND started_at >= $2`, [connectionId, since]);
  const countsByRun = new Map(rows.map((row: { id: string; counts: Record<string, unknown> }) => [row.id, row.counts]));
  for (const pass of passes) {
    const counts = countsByRun.get(`${pass.workflowId}/${pass.runId}`);
    if (counts) pass.counts = counts;
  }
  const withHistory = new Set(options.withHistory ?? []);
  await eachLimited(passes.filter((pass) => withHistory.has(pass.kind) && pass.closeMs !== null), 6, (pass) => historyFigures(client, pass).catch(() => {}));
  return { passes, schedules };
}

/** Per kind: how many passes, their seconds start to close, their task waits, and the longest gap between two starts. */
export function passFigures(passes: Pass[]) {
  const byKind: Record<string, unknown> = {};
  for (const kind of Object.keys(SCHEDULES) as PassKind[]) {
    const mine = passes.filter((pass) => pass.kind === kind);
    if (mine.length === 0) continue;
    const closed = mine.filter((pass) => pass.closeMs !== null);
    const gaps = mine.slice(1).map((pass, index) => pass.startMs - mine[index]!.startMs);
    const withHistory = closed.filter((pass) => pass.activityQueueMs !== undefined);
    byKind[kind] = {
      passes: mine.length,
      notCompleted: mine.filter((pass) => pass.status !== 'COMPLETED').length,
      seconds: spread(closed.map((pass) => pass.closeMs! - pass.startMs)),
      // A gap near twice the interval is a tick the schedule skipped (the previous pass still ran).
      startGapSeconds: spread(gaps),
      ...(withHistory.length > 0 && {
        activityQueueSeconds: spread(withHistory.map((pass) => pass.activityQueueMs!)),
        activityRunSeconds: spread(withHistory.map((pass) => pass.activityRunMs!)),
        workflowTaskQueueSeconds: spread(withHistory.map((pass) => pass.workflowQueueMs!)),
        activityRetries: withHistory.reduce((sum, pass) => sum + pass.retries!, 0),
      }),
      withRecords: mine.filter((pass) => Number(pass.counts?.records ?? 0) > 0).length,
      recordsFailed: mine.reduce((sum, pass) => sum + Number(pass.counts?.failed ?? 0), 0),
    };
  }
  return byKind;
}

/**
 * For one late change (made at `at`, its CRM write recorded at `arrivedAt`): the pass that carried it and
 * the notification and full passes that ran wholly between the change and its arrival without carrying it.
 * Those say where the time went: no pass ran (the schedule), passes ran and did not take it (the feed,
 * a held record, a failure), or the carrying pass itself was slow (its task waits, its run). Later
 * writes of the same record (nothing newer made) are named with the pass that made them.
 */
export function whereTheTimeWent(passes: Pass[], change: { at: number; arrivedAt: number; rewrittenAt?: number[] }) {
  const describe = (pass: Pass) => ({
    kind: pass.kind,
    startedAfterChangeSeconds: seconds(pass.startMs - change.at),
    seconds: pass.closeMs === null ? null : seconds(pass.closeMs - pass.startMs),
    ...(pass.activityQueueMs !== undefined && { activityQueueSeconds: seconds(pass.activityQueueMs), activityRunSeconds: seconds(pass.activityRunMs!), retries: pass.retries }),
    ...(pass.counts && { counts: pass.counts }),
  });
  const flows = passes.filter((pass) => pass.kind === 'realtime' || pass.kind === 'incremental');
  // The link is written inside the activity, before the pass closes; a second of slack for the clocks.
  // The passes that carry commerce changes first, then any other (co-sell writes referrals' links too).
  const during = (at: number) => (pass: Pass) => pass.startMs - 1000 <= at && (pass.closeMs ?? Infinity) + 1000 >= at;
  const carrierAt = (at: number) => flows.find(during(at)) ?? passes.find(during(at));
  const carrier = carrierAt(change.arrivedAt);
  const between = flows.filter((pass) => pass !== carrier && pass.startMs >= change.at && pass.closeMs !== null && pass.closeMs <= change.arrivedAt);
  return {
    carriedBy: carrier ? describe(carrier) : null,
    passedOverBy: between.map(describe),
    ...(change.rewrittenAt?.length && { rewrittenBy: change.rewrittenAt.map((at) => ({ afterChangeSeconds: seconds(at - change.at), pass: carrierAt(at)?.kind ?? null })) }),
  };
}
