// A lost answer, as a flaky network or a proxy restart makes one: the service carried the request out,
// but its answer arrives cut off (its status, headers and half its body) and the connection drops. The
// client cannot know whether the request took effect, so only an idempotent retry is safe.
import type { ServerResponse } from 'node:http';

/** The next answer written on `res` is cut off half way and the connection dropped. */
export function loseAnswer(res: ServerResponse): void {
  res.end = ((chunk?: unknown) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (!text) {
      // No body to cut: the connection drops before the answer is complete.
      res.destroy();
      return res;
    }
    res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
    return res;
  }) as typeof res.end;
}

/** A rule's extra wait: `slowMs` for a `slowRate` share of answers (a slow answer, not a failed one). */
export function slowness(rule: { slowRate?: number; slowMs?: number }, random: () => number): number {
  return rule.slowRate && rule.slowMs && random() < rule.slowRate ? rule.slowMs : 0;
}
