// Task priority and fairness for a connection's workflows (issue #29 part 3): on one fleet, one
// connection's backfill must not starve the other connections' scheduled syncs. Temporal's matching
// service orders backlogged tasks by priority key (lower first), then shares dispatch between fairness
// keys in proportion to their weight (temporal/matching-config.ts turns both on in the server).
// Activities inherit their workflow's priority, so setting it where a workflow starts covers them all.
import type { Priority } from '@temporalio/common';

/**
 * Scheduled passes (incremental, near-real-time, co-sell, reconciliation) keep data fresh: they go
 * before bulk work. Backfills are bulk work: they take what the scheduled passes leave. Both inside
 * the server's default five levels, apart from its default of 3 so either side can be told apart.
 */
export const SCHEDULED_PRIORITY_KEY = 2;
export const BACKFILL_PRIORITY_KEY = 4;

/** Fairness keys are limited to 64 bytes by the server; connection ids (UUIDs) are 36. */
const fairnessKey = (connectionId: string) => connectionId.slice(0, 64);

/** A scheduled pass of a connection: high priority, shared fairly with the other connections. */
export function scheduledPriority(connectionId: string): Priority {
  return { priorityKey: SCHEDULED_PRIORITY_KEY, fairnessKey: fairnessKey(connectionId), fairnessWeight: 1 };
}

/** A backfill of a connection: low priority, and within it a fair share between connections' backfills. */
export function backfillPriority(connectionId: string): Priority {
  return { priorityKey: BACKFILL_PRIORITY_KEY, fairnessKey: fairnessKey(connectionId), fairnessWeight: 1 };
}
