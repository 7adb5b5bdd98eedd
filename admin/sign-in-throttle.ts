// Failed sign-ins counted per client address over a sliding minute: past the limit, that address is
// answered 429 (with Retry-After) until its oldest failure leaves the window, so the token cannot be
// guessed at speed. A successful sign-in clears the address. In memory and bounded: a flood of
// addresses evicts the longest-quiet ones instead of growing without end.
export type SignInThrottle = {
  /** Seconds the address must wait before trying again, or undefined when it may try now. */
  retryAfter(address: string): number | undefined;
  failed(address: string): void;
  succeeded(address: string): void;
};

export function createSignInThrottle(options: { limit?: number; windowMs?: number; maxAddresses?: number; clock?: () => number } = {}): SignInThrottle {
  const limit = options.limit ?? 5;
  const windowMs = options.windowMs ?? 60_000;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const clock = options.clock ?? Date.now;
  // Insertion order doubles as "least recently failed first" (an address is re-inserted on each failure).
  const failures = new Map<string, number[]>();

  const recent = (address: string): number[] => {
    const since = clock() - windowMs;
    const kept = (failures.get(address) ?? []).filter((at) => at > since);
    if (kept.length) failures.set(address, kept);
    else failures.delete(address);
    return kept;
  };

  return {
    retryAfter(address) {
      const kept = recent(address);
      if (kept.length < limit) return undefined;
      // Free again when enough failures have left the window to drop below the limit.
      const freedAt = kept[kept.length - limit]! + windowMs;
      return Math.max(1, Math.ceil((freedAt - clock()) / 1000));
    },
    failed(address) {
      const kept = recent(address);
      failures.delete(address);
      failures.set(address, [...kept, clock()].slice(-limit));
      while (failures.size > maxAddresses) failures.delete(failures.keys().next().value!);
    },
    succeeded(address) {
      failures.delete(address);
    },
  };
}
