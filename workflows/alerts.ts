// The alerts step of the near-real-time run (issue #27 section 2): read what the feed holds for the
// alert routes, then deliver each waiting alert, one activity each, retried with backoff on 5xx and
// 429 (after Retry-After), never on a refusal. A route with a storm waiting gets one digest. An alert
// that still fails becomes a dead letter with the service's answer. Alerts never fail the sync's run.
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AlertActivities, AlertJob } from '../activities/alerts.ts';
import { rootMessage } from './sync.ts';
import { inheritedPriority } from './priority.ts';

/** At most this many feed pages per run for alerts (a backfill's storm is read over a few runs). */
const MAX_ALERT_PAGES = 50;

export type AlertRetry = { maximumAttempts?: number; initialInterval?: string };

export async function alertsStep(input: { connectionId: string; alertRetry?: AlertRetry }): Promise<{ queued: number; sent: number; failed: number }> {
  const { readAlertEvents, pendingAlerts, recordAlertFailure } = proxyActivities<AlertActivities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
    ...inheritedPriority(),
  });
  const { deliverAlert } = proxyActivities<AlertActivities>({
    startToCloseTimeout: '1 minute',
    retry: {
      initialInterval: (input.alertRetry?.initialInterval ?? '2 seconds') as '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '5 minutes',
      maximumAttempts: input.alertRetry?.maximumAttempts ?? 8,
      nonRetryableErrorTypes: ['AlertRefused'],
    },
    ...inheritedPriority(),
  });
  const totals = { queued: 0, sent: 0, failed: 0 };
  for (let page = 0; page < MAX_ALERT_PAGES; page += 1) {
    const read = await readAlertEvents({ connectionId: input.connectionId });
    totals.queued += read.queued;
    if (read.done) break;
  }
  const jobs = await pendingAlerts({ connectionId: input.connectionId });
  // One route's alerts go in order, one at a time (Slack takes about one message a second per webhook); routes at once.
  const byRoute = new Map<string, AlertJob[]>();
  for (const job of jobs) byRoute.set(job.routeId, [...(byRoute.get(job.routeId) ?? []), job]);
  await Promise.all(
    [...byRoute.values()].map(async (routeJobs) => {
      for (const job of routeJobs) {
        // The same on every retry of this delivery, and only this delivery's.
        const claim = `${workflowInfo().workflowId}/${workflowInfo().runId}/${job.digest ? 'digest' : job.eventId}`;
        try {
          totals.sent += (await deliverAlert({ connectionId: input.connectionId, job, claim })).sent;
        } catch (error) {
          const cause = error instanceof ActivityFailure ? error.cause : undefined;
          const answer = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
          await recordAlertFailure({ connectionId: input.connectionId, job, claim, reason: rootMessage(error), answer });
          totals.failed += 1;
        }
      }
    }),
  );
  return totals;
}
