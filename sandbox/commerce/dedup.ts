// Offer create deduplication (§8, A9): an identical body (keys sorted) from the same client id within
// 60 seconds gets the original response back instead of a second offer.
const WINDOW_MS = 60_000;

/** JSON with object keys sorted at every level, so key order does not make two bodies differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class CreateDedup {
  #entries = new Map<string, { atMs: number; status: number; text: string }>();

  /** The remembered response for this client and body, if it is younger than 60 s. */
  find(clientId: string, body: unknown, nowMs: number): { status: number; text: string } | undefined {
    this.#evict(nowMs);
    const entry = this.#entries.get(this.#key(clientId, body));
    return entry && nowMs - entry.atMs < WINDOW_MS && nowMs >= entry.atMs ? entry : undefined;
  }

  remember(clientId: string, body: unknown, nowMs: number, status: number, text: string): void {
    this.#entries.set(this.#key(clientId, body), { atMs: nowMs, status, text });
  }

  clear(): void {
    this.#entries = new Map();
  }

  #key(clientId: string, body: unknown) {
    return `${clientId}\u0000${canonicalJson(body)}`;
  }

  #evict(nowMs: number) {
    for (const [key, entry] of this.#entries) if (nowMs - entry.atMs >= WINDOW_MS) this.#entries.delete(key);
  }
}
