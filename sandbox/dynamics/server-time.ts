// The clock a request's server time runs on (limits.ts: operationMs, requestTimeoutMs; batch.ts; server.ts).
// Real time by default. A test may give its own clock, so that how many operations ran before the time
// limit, or before a client stopped waiting, follows the figures it set and not how busy the machine is.
export type ServerTime = {
  /** Milliseconds, monotonic (performance.now() by default). */
  now(): number;
  /** Resolves once `ms` more have passed on this clock. */
  sleep(ms: number): Promise<unknown>;
};

export const realServerTime: ServerTime = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
