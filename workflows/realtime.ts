// Near-real-time: on a short schedule, read the notification feed and sync just the entities it names.
// The slower incremental pass remains the safety net for anything the feed misses.
import { proxyActivities } from '@temporalio/workflow';
import type { SyncActivities } from '../activities/sync.ts';

const { syncFromNotifications } = proxyActivities<SyncActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** At most this many feed pages per run, so one run stays short; the next tick continues. */
const MAX_PAGES = 20;

export async function realtimeSyncWorkflow(input: { connectionId: string }) {
  const totals = { events: 0, setAside: 0, created: 0, updated: 0, unchanged: 0, failed: 0, pages: 0 };
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const outcome = await syncFromNotifications({ connectionId: input.connectionId });
    totals.pages += 1;
    totals.events += outcome.events;
    totals.setAside += outcome.setAside;
    totals.created += outcome.created;
    totals.updated += outcome.updated;
    totals.unchanged += outcome.unchanged;
    totals.failed += outcome.failed;
    if (outcome.done) break;
  }
  return totals;
}
