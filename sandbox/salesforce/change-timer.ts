// The change driver's timer (changesPerSecond): it exists only while the rate is above 0, ticks ten
// times a second and carries fractions over, so 0.2 gives one change every five seconds. A tick that
// throws (a driver bug, a journal that cannot be written) stops the timer and keeps the reason for
// GET /_sandbox/changes/rate instead of failing silently on every tick.

const TICKS_PER_SECOND = 10;
export const MAX_CHANGES_PER_SECOND = 1000;

export type ChangeTimerStatus = { changesPerSecond: number; running: boolean; lastError: string | null };

export type ChangeTimer = {
  /** From now on `changesPerSecond` changes a second; 0 stops the timer. */
  setRate(changesPerSecond: number): ChangeTimerStatus;
  status(): ChangeTimerStatus;
  stop(): void;
};

export function createChangeTimer(apply: (count: number) => void, initialRate: number): ChangeTimer {
  let rate = 0;
  let owed = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let lastError: string | null = null;

  const stop = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    owed = 0;
  };
  const tick = () => {
    owed += rate / TICKS_PER_SECOND;
    const due = Math.floor(owed);
    if (due === 0) return;
    owed -= due;
    try {
      apply(due);
    } catch (error) {
      lastError = (error as Error).message;
      rate = 0;
      stop();
    }
  };
  const status = (): ChangeTimerStatus => ({ changesPerSecond: rate, running: timer !== undefined, lastError });
  const setRate = (next: number) => {
    rate = next;
    if (rate === 0) stop();
    else if (timer === undefined) {
      lastError = null;
      timer = setInterval(tick, 1000 / TICKS_PER_SECOND);
      timer.unref(); // a sandbox left running never keeps a test process alive
    }
    return status();
  };

  setRate(initialRate);
  return { setRate, status, stop };
}
