// How many requests reached each kind of endpoint, for tests that assert call efficiency
// (e.g. 250 upserts = 3 batch-upsert calls).
export function createCallCounter() {
  const counts = new Map<string, number>();
  return {
    count(kind: string) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    },
    snapshot(): Record<string, number> {
      const byKind = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
      return { ...byKind, total: [...counts.values()].reduce((sum, n) => sum + n, 0) };
    },
    reset: () => counts.clear(),
  };
}

export type CallCounter = ReturnType<typeof createCallCounter>;
