// `npm run chaos` (CRM_SYNC_CHAOS=full) runs the reliability scenarios at full size, with kills at random
// moments; `npm test` runs the same files reduced, at fixed moments. A chaos run prints its seed, and
// CRM_SYNC_CHAOS_SEED replays the same moments.
export const CHAOS_FULL = process.env.CRM_SYNC_CHAOS === 'full';

export const CHAOS_SEED = Number(process.env.CRM_SYNC_CHAOS_SEED ?? Date.now() % 2_147_483_647);

/** A small seeded generator (mulberry32): the same seed gives the same moments on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `count` distinct moments in [1, last], in order (as progress counts: pages read so far, say). */
export function randomMoments(count: number, last: number, seed: number = CHAOS_SEED): number[] {
  const next = random(seed);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, last)) chosen.add(1 + Math.floor(next() * last));
  return [...chosen].sort((a, b) => a - b);
}
