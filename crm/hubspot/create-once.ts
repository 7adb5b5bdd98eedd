// Records keyed by a property that is not unique (a task's commerce_event_id: HubSpot has no unique-value
// properties on activities), made once although HubSpot's search trails writes by seconds
// (docs/crm-wire-behaviour.md, "Search lags writes"). Before a create the connector searches the key;
// a task made moments ago is not found yet, so a second attempt would make a second task. Three things
// close that window:
//
// - A create is sent once per attempt at it: the transport's own retry of a dropped or 5xx answer would
//   send it again (it may have been carried out), so here a create whose answer was lost is not resent
//   blind; the keys are looked for once the index has caught up with it, and only the ones not found are
//   sent again.
// - What this connector made is remembered (key -> id, from the moment HubSpot answers) until search is
//   sure to show it: a retry on this worker (the connector is kept per connection) updates those tasks by
//   id. A create sent whose answer never came is remembered too, with when it was sent.
// - A retried Temporal attempt (the earlier one failed, timed out or its worker was SIGKILLed, perhaps on
//   another worker) searches for a key it does not find again once the lag has passed since the attempt
//   was scheduled: whatever the earlier attempt made, it made before then.
//
// Why this and not a claim row in PostgreSQL (as activities/claimed-creates.ts does for commerce
// creates): the claim would still need the same wait (a claimed key with no id may or may not have been
// made), and the connector has no database; the attempt's own schedule time is the claim's time, kept by
// Temporal. A normal run never waits: only a key not found on a retried attempt, or one whose create
// answer was lost, costs a wait of the lag bound, once per call.
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { CrmError, type UpsertResult } from '../connector.ts';
import { hubspotErrorInfo } from './errors.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';
import { BATCH_SIZE, type WireWrite } from './writes.ts';

/**
 * How long after a write HubSpot's search is taken to show it: "several seconds" in practice
 * (docs/crm-wire-behaviour.md); the bound leaves a wide margin [inf: HubSpot publishes no bound].
 */
export const SEARCH_LAG_BOUND_MS = 20_000;
/** Looks after lost answers in one call, before the call gives up (and Temporal retries the activity). */
const LOOKS = 3;

/** A create sent (when, last), and the id HubSpot gave, once it answered. */
type Sent = { at: number; crmId?: string };
/** One try at a batch create: whether it may have been carried out, and when it was last sent. */
type Attempt = { mayHaveLanded: boolean; sentAt: number };
type BatchAnswer = { results?: { id: string; properties?: Record<string, string | null> }[]; errors?: { message: string; category: string }[] };

export type CreateOnceOptions = {
  /** How long search may trail a write (default SEARCH_LAG_BOUND_MS). */
  lagBoundMs?: number;
  now?: () => number;
  /** When this call's Temporal attempt was scheduled, if it is a retry (default: read from the activity's context). */
  retriedSince?: () => number | undefined;
};

/** When this worker first saw each running attempt (its own clock), by the attempt's context. */
const attemptSeenAt = new WeakMap<object, number>();

/**
 * From when a retried attempt may trust what the earlier one did to be searchable (less the lag): the
 * later of the time Temporal scheduled it (the server's clock) and the time this worker first saw it (its
 * own). The wait is measured on this worker's clock, so one running ahead of the server's would otherwise
 * take an old schedule time for a wait already done and not wait at all.
 */
export function retriedAttemptStart(scheduledMs: number, seenMs: number): number {
  return Math.max(scheduledMs, seenMs);
}

/** When the current Temporal activity attempt began (retriedAttemptStart), if it is not the first; undefined outside an activity. */
export function retriedAttemptScheduledAt(): number | undefined {
  try {
    const context = Context.current();
    if (context.info.attempt <= 1) return undefined;
    let seen = attemptSeenAt.get(context);
    if (seen === undefined) attemptSeenAt.set(context, (seen = Date.now()));
    return retriedAttemptStart(context.info.currentAttemptScheduledTimestampMs, seen);
  } catch {
    return undefined;
  }
}

export function createOnce(transport: HubSpotTransport, options: CreateOnceOptions = {}) {
  const lagBoundMs = options.lagBoundMs ?? SEARCH_LAG_BOUND_MS;
  const now = options.now ?? Date.now;
  const retriedSince = options.retriedSince ?? retriedAttemptScheduledAt;
  const sent = new Map<string, Sent>();
  const slot = (object: string, key: string) => `${object}\u0000${key}`;
  /** Entries search is sure to show by now are dropped: the search finds those. */
  const forgetIndexed = () => {
    for (const [key, entry] of sent) if (entry.at + lagBoundMs <= now()) sent.delete(key);
  };

  /** Waits (heartbeating through onProgress) until `at`; says whether it had to. */
  async function waitUntil(at: number, signal?: AbortSignal, onProgress?: (detail: Record<string, unknown>) => void): Promise<boolean> {
    const waits = now() < at;
    while (now() < at) {
      signal?.throwIfAborted();
      onProgress?.({ phase: "waiting for HubSpot's search to show recent writes", until: new Date(at).toISOString() });
      await sleep(Math.min(1_000, Math.max(0, at - now())), undefined, signal ? { signal } : undefined);
    }
    return waits;
  }

  /**
   * One batch create, sent at most once: a retry inside the transport after an answer that may have been
   * carried out (dropped, cut off, 5xx) is stopped here with ANSWER_LOST. A 4xx (429, 401 included) was
   * not carried out, so the transport may send it again. `attempt` says which it was, and when it was
   * last sent (the transport may first wait for its rate limits).
   */
  async function sendOnce(object: string, writes: WireWrite[], attempt: Attempt, signal?: AbortSignal): Promise<BatchAnswer> {
    return (await transport.call(
      `a batch create of ${writes.length} ${object}`,
      async (client) => {
        if (attempt.mayHaveLanded) throw new CrmError(`HubSpot's answer to a batch create of ${writes.length} ${object} was lost; they are looked for before any is made again`, { code: 'ANSWER_LOST', retryable: true });
        attempt.sentAt = now();
        try {
          return await client.crm.objects.batchApi.create(object, { inputs: writes.map((write) => ({ properties: write.properties, associations: [] })) });
        } catch (error) {
          const status = hubspotErrorInfo(error)?.status;
          attempt.mayHaveLanded = !(status !== undefined && status >= 400 && status < 500);
          throw error;
        }
      },
      { signal },
    )) as unknown as BatchAnswer;
  }

  /**
   * Creates one batch (each write holding its key in `field`) into `results`. A lost answer: waits out the
   * lag, adopts what `look` finds with those keys, sends the rest again. A whole-batch refusal (400, 409)
   * is split until it names the one record it is about, as the writer does for other objects.
   */
  async function createBatch(object: string, field: string, batch: WireWrite[], context: CreateContext): Promise<void> {
    const keyOf = (write: WireWrite) => write.properties[field]!;
    let pending = batch;
    for (let round = 1; pending.length; round += 1) {
      const attempt: Attempt = { mayHaveLanded: false, sentAt: now() };
      for (const write of pending) sent.set(slot(object, keyOf(write)), { at: attempt.sentAt });
      let answer: BatchAnswer;
      try {
        answer = await sendOnce(object, pending, attempt, context.signal);
      } catch (error) {
        if (!attempt.mayHaveLanded) {
          // Refused before anything was made.
          for (const write of pending) sent.delete(slot(object, keyOf(write)));
          if (error instanceof HubSpotCallError && (error.info.status === 400 || error.info.status === 409)) {
            if (pending.length === 1) {
              context.results.set(pending[0]!, { sourceId: pending[0]!.sourceId, ok: false, error: { code: error.info.category ?? (error.info.status === 409 ? 'CONFLICT' : 'VALIDATION_ERROR'), message: error.info.message } });
              return;
            }
            const half = Math.ceil(pending.length / 2);
            await createBatch(object, field, pending.slice(0, half), context);
            await createBatch(object, field, pending.slice(half), context);
            return;
          }
          throw error;
        }
        // Carried out or not, nobody knows: remembered as sent (so a retry here waits for the index too).
        for (const write of pending) sent.set(slot(object, keyOf(write)), { at: attempt.sentAt });
        if (!(error instanceof CrmError && error.code === 'ANSWER_LOST') || round >= LOOKS) throw error;
        await waitUntil(attempt.sentAt + lagBoundMs, context.signal, context.onProgress);
        const found = await context.look(pending.map(keyOf));
        for (const write of pending) {
          const crmId = found.get(keyOf(write));
          if (!crmId) continue;
          sent.set(slot(object, keyOf(write)), { at: attempt.sentAt, crmId });
          context.results.set(write, { sourceId: write.sourceId, ok: true, crmId, created: true });
        }
        pending = pending.filter((write) => !context.results.has(write));
        continue;
      }
      // Creates carry no key but their properties: the answer's records are matched by the key they hold.
      const byKey = new Map<string, string>();
      for (const result of answer.results ?? []) {
        const key = result.properties?.[field];
        if (typeof key === 'string' && !byKey.has(key)) byKey.set(key, String(result.id));
      }
      const refusal = answer.errors?.[0];
      for (const write of pending) {
        const crmId = byKey.get(keyOf(write));
        if (crmId) {
          sent.set(slot(object, keyOf(write)), { at: attempt.sentAt, crmId });
          context.results.set(write, { sourceId: write.sourceId, ok: true, crmId, created: true });
        } else {
          sent.delete(slot(object, keyOf(write)));
          context.results.set(write, { sourceId: write.sourceId, ok: false, error: refusal ? { code: refusal.category, message: refusal.message } : { code: 'NO_RESULT', message: `HubSpot's answer to the batch create of ${object} did not mention this record` } });
        }
      }
      return;
    }
  }

  return {
    lagBoundMs,

    /**
     * Ids this connector made for `keys` of `object` (answered, not yet surely searchable), and the time
     * from which a search for the other keys is to be believed: now, unless a create of one of them was
     * sent without an answer, or this is a retried attempt.
     */
    recall(object: string, keys: string[]): { made: Map<string, string>; searchTrustedFrom: number } {
      forgetIndexed();
      const made = new Map<string, string>();
      let from = 0;
      for (const key of keys) {
        const entry = sent.get(slot(object, key));
        if (entry?.crmId) made.set(key, entry.crmId);
        else if (entry) from = Math.max(from, entry.at + lagBoundMs);
      }
      const retried = retriedSince();
      if (retried !== undefined) from = Math.max(from, retried + lagBoundMs);
      return { made, searchTrustedFrom: from };
    },

    waitUntil,

    /**
     * Creates `writes` (each holding its key in `field`), 100 a batch, each sent once; where an answer was
     * lost, what `look` finds with those keys once the index has caught up is taken instead.
     */
    async create(object: string, field: string, writes: WireWrite[], look: (keys: string[]) => Promise<Map<string, string>>, signal?: AbortSignal, onProgress?: (detail: Record<string, unknown>) => void): Promise<UpsertResult[]> {
      const context: CreateContext = { look, signal, onProgress, results: new Map() };
      for (let start = 0; start < writes.length; start += BATCH_SIZE) await createBatch(object, field, writes.slice(start, start + BATCH_SIZE), context);
      return writes.map((write) => context.results.get(write)!);
    },
  };
}

type CreateContext = { look: (keys: string[]) => Promise<Map<string, string>>; signal?: AbortSignal; onProgress?: (detail: Record<string, unknown>) => void; results: Map<WireWrite, UpsertResult> };
