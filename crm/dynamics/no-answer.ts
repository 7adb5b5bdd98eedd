// What a writer does when a $batch of writes got no answer (transport.ts: DynamicsUnansweredError, the
// answer lost, cut off, past its deadline, or a 5xx): Dataverse may have run any part of it, and goes on
// running it when the client stops waiting (issue #22 item 7). So nothing of it is sent again before the
// writer has found out what was done: wait (250 ms, doubling each round in a row, so a $batch still
// running can finish), then read what was done (`recover`, which answers what must still be sent). After
// MAX_UNANSWERED_ROUNDS rounds in a row without an answer the error stands (the activity is retried later
// and reads again). One rule for both writers: rows (writes.ts) and close actions (state-transitions.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamicsUnansweredError } from './transport.ts';

/** Rounds without an answer in a row before the write fails. */
export const MAX_UNANSWERED_ROUNDS = 5;

/**
 * After `error` on the `round`-th $batch in a row without an answer (from 1): rethrows anything but a
 * missing answer, and a missing answer past the last round; otherwise waits, then answers `recover()`.
 */
export async function afterNoAnswer<T>(error: unknown, round: number, recover: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!(error instanceof DynamicsUnansweredError) || round >= MAX_UNANSWERED_ROUNDS) throw error;
  await sleep(250 * 2 ** round, undefined, { signal });
  return recover();
}
