// The Temporal server's dynamic config that makes its matching service honour task priority and
// fairness (server v1.29, go.temporal.io/server common/dynamicconfig/constants.go). Without it the
// server accepts the `priority` on starts and schedules and records it in the history, but matches
// tasks in arrival order. One list for every server we run or describe: the dev server (infra/
// temporal-dev-server.ts) passes it as `--dynamic-config-value KEY=VALUE` (values JSON-encoded), and a
// real cluster's dynamic config file carries the same keys (each a list of `{ value }` entries).
export const MATCHING_PRIORITY_CONFIG = {
  /** The priority-enabled task matcher (`Use priority-enabled TaskMatcher`); off by default in v1.29. */
  'matching.useNewMatcher': true,
  /** Fairness between fairness keys within a priority level (implies the new matcher); off by default. */
  'matching.enableFairness': true,
  /** Priority levels 1..5 (the server's default, stated so the keys in temporal/sync-priority.ts stay inside it). */
  'matching.priorityLevels': 5,
} as const satisfies Record<string, string | number | boolean>;

/** The same keys as a server dynamic config file (YAML) holds them, for a real cluster's config. */
export function matchingPriorityConfigYaml(): string {
  return Object.entries(MATCHING_PRIORITY_CONFIG)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}
