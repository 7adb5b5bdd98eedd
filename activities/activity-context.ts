// What an activity tells Temporal while it works, and what Temporal tells it back: heartbeats (with
// details that survive into the next attempt, such as a Bulk API job already created), cancellation
// (the attempt timed out or the run was cancelled: stop before the next call), and log lines.
// Outside an activity (unit tests calling functions directly) every call here is a no-op.
import { Context } from '@temporalio/activity';

function current(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Aborted when Temporal cancels this attempt (heartbeat or start-to-close timeout, or the run cancelled). */
export function cancellationSignal(): AbortSignal | undefined {
  return current()?.cancellationSignal;
}

export function throwIfCancelled(): void {
  current()?.cancellationSignal.throwIfAborted();
}

/** The details of the previous attempt's last heartbeat (what survives a retry). */
export function previousDetails<T>(): Partial<T> {
  return (current()?.info.heartbeatDetails as Partial<T> | undefined) ?? {};
}

export function activityLog(message: string): void {
  current()?.log.info(message);
}

/** A warning in the activity's log (something a person should act on, the work went on). */
export function activityWarn(message: string): void {
  current()?.log.warn(message);
}

/**
 * Heartbeats of one activity attempt. `keep` adds facts every later heartbeat carries (so the next
 * attempt can read them) and is sent at once; each beat adds the current phase. Progress beats come
 * per record on a large page, and the SDK serializes the details of every call before throttling
 * them, so beats closer than `minIntervalMs` to the last one sent are dropped here (the next one
 * carries the newer phase; liveness is measured from the last one sent).
 */
export function createBeat<K extends Record<string, unknown>>(kept: Partial<K> = {}, options: { minIntervalMs?: number; now?: () => number } = {}) {
  const minIntervalMs = options.minIntervalMs ?? 1_000;
  const now = options.now ?? Date.now;
  const sticky: Record<string, unknown> = { ...kept };
  let lastSent = -Infinity;
  const send = (phase: Record<string, unknown>) => {
    const context = current();
    if (!context) return;
    lastSent = now();
    context.heartbeat({ ...sticky, ...phase });
  };
  const beat = (phase: Record<string, unknown> = {}) => {
    if (now() - lastSent >= minIntervalMs) send(phase);
  };
  return Object.assign(beat, {
    keep(facts: Partial<K>) {
      Object.assign(sticky, facts);
      send({});
    },
    kept: () => sticky as Partial<K>,
  });
}

export type Beat = ReturnType<typeof createBeat>;

/** Beats every few seconds while `work` runs (one long call, such as a Bulk API job's upload). */
export async function whileBeating<T>(beat: Beat, phase: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  beat(phase);
  const timer = setInterval(() => beat(phase), 5_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
