// Dataverse limits the combined execution time of one user's requests to 1,200,000 ms over a sliding
// 300 seconds (per web server) and answers 429 0x80072321 past it (learn.microsoft.com, Service
// protection API limits; "Larger sized batches increase the chance you will encounter execution time
// limits"). The connector keeps its own ledger of that time, the time its answered requests took and
// what its requests in flight are expected to take, and holds a $batch back while it would take the
// ledger past a share of the limit. So how many batches run at once follows the measured time per
// operation (about four batches' worth of server time a second), rather than eight large batches
// spending twice the budget and meeting refusals.
import { setTimeout as sleep } from 'node:timers/promises';

export const EXECUTION_LIMIT_MS = 1_200_000;
export const WINDOW_MS = 300_000;
/** Room left for the environment's other use of the same application user. */
const SHARE = 0.9;

export type ExecutionBudget = ReturnType<typeof createExecutionBudget>;

export function createExecutionBudget(options: { limitMs?: number; now?: () => number; wait?: (ms: number, signal?: AbortSignal) => Promise<unknown> } = {}) {
  const limit = (options.limitMs ?? EXECUTION_LIMIT_MS) * SHARE;
  const now = options.now ?? (() => performance.now());
  const wait = options.wait ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }));
  const spent: { at: number; ms: number }[] = [];
  let reserved = 0;
  const used = () => {
    const oldest = now() - WINDOW_MS;
    while (spent.length && spent[0]!.at <= oldest) spent.shift();
    return spent.reduce((sum, entry) => sum + entry.ms, 0) + reserved;
  };
  return {
    /**
     * Waits until `estimateMs` more fits the window (at once when nothing else is counted: a batch alone
     * is never held back), then counts it as in flight. The returned function settles it with the time
     * it took. Answers how long it waited.
     */
    async reserve(estimateMs: number, signal?: AbortSignal): Promise<{ waitedMs: number; settle: (actualMs: number) => void }> {
      const started = now();
      while (used() + estimateMs > limit && (spent.length > 0 || reserved > 0)) {
        // The oldest answer leaving the window frees its time; a request in flight frees it on its answer.
        const untilOldestLeaves = spent.length ? spent[0]!.at + WINDOW_MS - now() : 250;
        await wait(Math.min(5_000, Math.max(10, untilOldestLeaves)), signal);
      }
      reserved += estimateMs;
      let settled = false;
      return {
        waitedMs: now() - started,
        settle(actualMs: number) {
          if (settled) return;
          settled = true;
          reserved -= estimateMs;
          spent.push({ at: now(), ms: Math.max(0, actualMs) });
        },
      };
    },
    /** Execution time counted in the window now (answered and in flight). */
    used,
  };
}
