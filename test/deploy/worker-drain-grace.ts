// How long the worker lets running activities finish after SIGTERM (worker.ts, shutdownGraceTime), read
// from the source so the deploy tests notice when it grows past what compose and the chart allow.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, millisecond: 0.001, milliseconds: 0.001, s: 1, second: 1, seconds: 1, m: 60, minute: 60, minutes: 60 };

export function workerDrainGraceSeconds(repoRoot: string): number {
  const source = readFileSync(path.join(repoRoot, 'worker.ts'), 'utf8');
  const match = /shutdownGraceTime:\s*'(\d+(?:\.\d+)?)\s*([a-z]+)'/.exec(source);
  if (!match || UNIT_SECONDS[match[2]!] === undefined) {
    throw new Error("worker.ts no longer sets shutdownGraceTime as a literal like '10 seconds': update test/deploy/worker-drain-grace.ts to read the drain grace from where it now lives");
  }
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}
