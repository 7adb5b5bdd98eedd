// How many operations the next $batch of writes holds, from the time Dataverse took per operation so far
// (issue #22 item 7). Dataverse runs a $batch's operations one after another; one request has 2 minutes
// ("A Dataverse message operation must complete within 2 minutes", analyze-performance), and Microsoft's
// service-protection guidance is to "start with a small batch size of 10" and grow (api-limits, "Avoid
// large batches"). So the first $batch holds 10, each answered full batch lets the next hold four times
// as many, up to Dataverse's 1,000 and to what fits a third of the 2 minutes at the measured pace; a
// batch that got no answer makes the next a quarter of its size. While the size still grows, one $batch
// at a time (each answer sizes the next); once grown, as many at once as the connection's concurrency,
// each waiting for room in its execution-time ledger (execution-budget.ts), which keeps them to what
// Dataverse's 1,200 s of execution time per 300 s allows (about four running back to back): "Use
// multiple threads" and let the limits say how much (api-limits).
export const FIRST_BATCH = 10;
/** Dataverse's most operations in one $batch. */
export const MAX_BATCH = 1000;
/** A batch's expected server time at most: a third of the 2-minute limit, room for a slower minute. */
export const TARGET_BATCH_MS = 40_000;
const GROWTH = 4;
/** Before anything is measured: slow enough that the first deadlines are generous. */
const ASSUMED_OPERATION_MS = 100;

export type BatchSizer = ReturnType<typeof createBatchSizer>;

/**
 * `lanes`: $batches of writes at once once the size has grown. The transport passes the connection's
 * concurrency (8 unless the connection sets it, as in connection-settings.ts), and that is the intent:
 * the execution-time ledger (execution-budget.ts), not a fixed count, keeps them within Dataverse's
 * 1,200 s of execution time per 300 s (four fixed lanes left a gather's fifth $batch waiting alone).
 * A sizer made without it runs one $batch at a time.
 */
export function createBatchSizer(options: { targetMs?: number; lanes?: number } = {}) {
  const lanes = Math.max(1, options.lanes ?? 1);
  const targetMs = options.targetMs ?? TARGET_BATCH_MS;
  let size = FIRST_BATCH;
  let perOperationMs: number | undefined;
  /** Whether the size stopped growing (Dataverse's 1,000, or what fits the target at the pace measured). */
  let grown = false;
  const fitting = () => Math.max(1, Math.floor(targetMs / (perOperationMs ?? ASSUMED_OPERATION_MS)));
  return {
    /** Operations the next $batch of writes may hold. */
    next: () => size,
    /** Time per operation as measured (a moving average of answered batches), or the assumption before any. */
    perOperationMs: () => perOperationMs ?? ASSUMED_OPERATION_MS,
    /** A batch of `operations` answered after `ms`: the pace is measured again; a full batch lets the size grow. */
    answered(operations: number, ms: number) {
      if (operations <= 0) return;
      const sample = Math.max(0, ms) / operations;
      perOperationMs = perOperationMs === undefined ? sample : 0.7 * perOperationMs + 0.3 * sample;
      const cap = Math.max(1, Math.min(MAX_BATCH, fitting()));
      size = Math.min(cap, operations >= size ? size * GROWTH : size);
      grown = size === cap;
    },
    /** A batch that got no answer (lost, past its deadline, stopped by the server's limit): smaller next time. */
    unanswered(operations: number, ms: number) {
      if (operations > 0 && ms > 0) perOperationMs = Math.max(perOperationMs ?? 0, ms / operations);
      size = Math.max(1, Math.floor(Math.min(size, Math.max(1, operations)) / GROWTH));
      grown = false;
    },
    /** How many $batches of writes may run at once: one while the size grows, then `lanes`. */
    lanes: () => (grown ? lanes : 1),
    /** How long to wait for a batch of `operations`: its expected server time three times over, plus `baseMs`. */
    deadlineMs: (operations: number, baseMs: number) => Math.round(baseMs + 3 * operations * (perOperationMs ?? ASSUMED_OPERATION_MS)),
  };
}
