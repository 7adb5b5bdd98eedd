// The workflow's own priority and fairness key, stated on each activity it schedules. Temporal would
// apply them anyway (activities inherit their workflow's priority: the history service merges the two
// when it hands an activity to matching), but stated they show in each ActivityTaskScheduled event and in
// a pending activity's describe, where an operator looking at a slow connection reads them.
import type { Priority } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/** `{ priority }` for proxyActivities' options, or nothing when the workflow was started without one. */
export function inheritedPriority(): { priority?: Priority } {
  const priority = workflowInfo().priority;
  return priority && (priority.priorityKey || priority.fairnessKey) ? { priority } : {};
}
