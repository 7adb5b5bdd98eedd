// `npm run chaos` (CRM_SYNC_CHAOS=full) runs the reliability scenarios at full size, with kills at random
// moments; `npm test` runs the same files reduced, at fixed moments. A chaos run prints its seed, and
// CRM_SYNC_CHAOS_SEED replays the same moments.
import { createRandom } from '../../sandbox/commerce/prng.ts';

export const CHAOS_FULL = process.env.CRM_SYNC_CHAOS === 'full';

export const CHAOS_SEED = Number(process.env.CRM_SYNC_CHAOS_SEED ?? Date.now() % 2_147_483_647);

/** `count` distinct moments in [1, last], in order (as progress counts: pages read so far, say). */
export function randomMoments(count: number, last: number, seed: number = CHAOS_SEED): number[] {
  const random = createRandom(seed);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, last)) chosen.add(random.int(1, last));
  return [...chosen].sort((a, b) => a - b);
}
