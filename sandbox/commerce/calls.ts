// Counts of calls per operation key ('METHOD /path/template'), for tests that check how many requests
// a client made (retries, paging, token reuse).
export class CallCounter {
  #counts = new Map<string, number>();
  #total = 0;

  record(key: string): void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#total++;
  }

  snapshot(): { total: number; operations: Record<string, number> } {
    return { total: this.#total, operations: Object.fromEntries([...this.#counts].sort(([a], [b]) => (a < b ? -1 : 1))) };
  }

  reset(): void {
    this.#counts = new Map();
    this.#total = 0;
  }
}
