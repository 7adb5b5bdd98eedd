// How many requests reached each kind of endpoint ("POST $batch", "PATCH accounts",
// "GET EntityDefinitions", "POST token", ...) plus "$batch operations" (operations inside batches) and
// "$batch of reads only" (the POST $batch requests whose every part is a GET) and "$batch close actions"
// (WinOpportunity / LoseOpportunity parts), none of them in the total.
export function createCallCounter() {
  const counts = new Map<string, number>();
  return {
    count(kind: string, n = 1) {
      counts.set(kind, (counts.get(kind) ?? 0) + n);
    },
    snapshot(): Record<string, number> {
      const byKind = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
      const total = [...counts].filter(([k]) => !k.startsWith('$batch ')).reduce((sum, [, n]) => sum + n, 0);
      return { ...byKind, total };
    },
    reset: () => counts.clear(),
  };
}

export type CallCounter = ReturnType<typeof createCallCounter>;
