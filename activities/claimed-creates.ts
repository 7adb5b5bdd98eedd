// Commerce creates that cannot happen twice (issue #24 item 6). A create whose answer was lost may
// still be committed by the service afterwards, so a look for it right after the failure proves nothing.
// Before each create chunk the attempt claims the chunk's intent rows (store/outbound-intents.ts):
// a row another attempt held is looked for only once that attempt's create is surely visible
// (`adopt_after`), and the claim is taken again after the look, so a create goes out only when nobody
// claimed the row since this attempt's own look. An attempt that outlived its heartbeat finds its rows
// held by its retry and stops, never creating beside it.
//
// "Surely visible" rests on one bound: the service commits a request no later than the client's request
// timeout after it was sent (commerce/http.ts, 30 s unless the connection sets commerce.requestTimeoutMs,
// which sync/runtime.ts gives the client and the caller gives here). A failed
// create call sent its last request before it failed, so its rows are visible TIMEOUT after the failure;
// a create call that never came back (the worker died mid-call) is given two timeouts from its claim.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Made } from '../flows/crm-to-commerce.ts';
import type { Claimant, OutboundIntentStore } from '../store/outbound-intents.ts';

/** The commerce client's default per-request timeout (commerce/http.ts), with a margin for clocks. */
export const COMMERCE_REQUEST_TIMEOUT_SECONDS = 30;
const MARGIN_SECONDS = 5;
/** A failed create call's rows are visible this long after the failure. */
export const afterFailureSeconds = (timeoutSeconds: number) => timeoutSeconds + MARGIN_SECONDS;
/** A claimed create's rows are visible this long after the claim, whatever became of the call. */
export const claimHoldSeconds = (timeoutSeconds: number) => 2 * timeoutSeconds + MARGIN_SECONDS;
export const AFTER_FAILURE_SECONDS = afterFailureSeconds(COMMERCE_REQUEST_TIMEOUT_SECONDS);
export const CLAIM_HOLD_SECONDS = claimHoldSeconds(COMMERCE_REQUEST_TIMEOUT_SECONDS);

/** This activity attempt, as the intent rows name their holder; outside Temporal, a one-off name. */
export function currentClaimant(): Claimant {
  try {
    const info = Context.current().info;
    return { activity: `${info.workflowExecution?.workflowId}/${info.workflowExecution?.runId}/${info.activityId}`, attempt: info.attempt };
  } catch {
    return { activity: `local/${randomUUID()}`, attempt: 1 };
  }
}

const sameClaimant = (a: Claimant | null, b: Claimant) => a !== null && a.activity === b.activity && a.attempt === b.attempt;

export type ClaimedCreate<C extends { crmId: string }, R> = { adopted: { candidate: C; made: Made }[]; created: { candidate: C; result: R }[] };

/**
 * Creates `chunk` once: claims its rows, waits out and looks for what an earlier holder may have made
 * (adopting it), and creates the rest. Throws a non-retryable `SupersededAttempt` when a later attempt
 * holds a row (this attempt's result no longer counts).
 */
export async function claimThenCreate<C extends { crmId: string }, R>(input: {
  intents: OutboundIntentStore;
  connectionId: string;
  flow: string;
  claimant: Claimant;
  chunk: C[];
  look(crmIds: string[]): Promise<Map<string, Made>>;
  create(chunk: C[]): Promise<R[]>;
  beat(detail: Record<string, unknown>): void;
  signal?: AbortSignal;
  now?: () => number;
  /** The commerce client's request timeout, in seconds (the connection's; default 30). */
  requestTimeoutSeconds?: number;
}): Promise<ClaimedCreate<C, R>> {
  const now = input.now ?? Date.now;
  const timeoutSeconds = input.requestTimeoutSeconds ?? COMMERCE_REQUEST_TIMEOUT_SECONDS;
  const adopted: ClaimedCreate<C, R>['adopted'] = [];
  let remaining = input.chunk;
  for (;;) {
    input.signal?.throwIfAborted();
    input.beat({ flow: input.flow, phase: 'claim', rows: remaining.length });
    const claimed = await input.intents.claim(input.connectionId, input.flow, remaining.map((candidate) => candidate.crmId), input.claimant, claimHoldSeconds(timeoutSeconds));
    if (claimed.length < remaining.length) {
      const taken = new Set(claimed.map((row) => row.crmId));
      const lost = remaining.filter((candidate) => !taken.has(candidate.crmId)).map((candidate) => candidate.crmId);
      throw ApplicationFailure.create({
        type: 'SupersededAttempt',
        nonRetryable: true,
        message: `A later attempt holds the creates of ${lost.length} record(s) (${lost.slice(0, 3).join(', ')}${lost.length > 3 ? ', ...' : ''}): this attempt outlived its heartbeat and stops without creating them`,
      });
    }
    // Rows another attempt held since this one last looked: their creates may still land.
    const held = claimed.filter((row) => row.before !== null && !sameClaimant(row.before, input.claimant));
    if (held.length === 0) break;
    const visibleAt = Math.max(...held.map((row) => row.adoptAfter?.getTime() ?? 0));
    while (now() < visibleAt) {
      input.signal?.throwIfAborted();
      input.beat({ flow: input.flow, phase: 'waiting for an earlier create to settle', until: new Date(visibleAt).toISOString() });
      await sleep(Math.min(1_000, Math.max(0, visibleAt - now())), undefined, input.signal ? { signal: input.signal } : undefined);
    }
    const found = await input.look(held.map((row) => row.crmId));
    for (const candidate of remaining) {
      const made = found.get(candidate.crmId);
      if (made) adopted.push({ candidate, made });
    }
    remaining = remaining.filter((candidate) => !found.has(candidate.crmId));
    if (remaining.length === 0) return { adopted, created: [] };
    // Claimed again before creating: a holder that came in during the look is waited out too.
  }
  input.beat({ flow: input.flow, phase: 'create', creating: remaining.length });
  let results: R[];
  try {
    results = await input.create(remaining);
  } catch (error) {
    // Whatever was sent, was sent before now: the next attempt need wait only a timeout from here.
    await input.intents.holdFromNow(input.connectionId, input.flow, remaining.map((candidate) => candidate.crmId), input.claimant, afterFailureSeconds(timeoutSeconds)).catch(() => undefined);
    throw error;
  }
  return { adopted, created: remaining.map((candidate, index) => ({ candidate, result: results[index]! })) };
}
