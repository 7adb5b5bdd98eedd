// How many requests reached each endpoint kind, for tests that assert call efficiency
// (e.g. 200 upserts = one composite-upsert call).

export function createCallCounter() {
  const counts = new Map<string, number>();
  return {
    count(kind: string) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    },
    /** Flat: one key per endpoint kind plus `total`. */
    snapshot(): Record<string, number> {
      const byKind = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
      return { ...byKind, total: [...counts.values()].reduce((sum, n) => sum + n, 0) };
    },
    reset() {
      counts.clear();
    },
  };
}

export type CallCounter = ReturnType<typeof createCallCounter>;
