// Injected trouble for resilience tests: per call kind (a rule's endpoint is '*' or a substring of
// the kind, e.g. 'PATCH', '$batch', 'opportunities'), a share of calls answers 429 (Dataverse's
// service protection body, Retry-After: 1) or 500 before doing anything, a share is done and then
// its answer cut off (truncatedRate: a lost answer), matching calls wait latencyMs, and a share of them
// (slowRate) slowMs more. A seed makes the sequence reproducible; `times` limits a rule to the next n
// calls it matches (then it is gone), for a test about one call.
import { randomUUID } from 'node:crypto';
import { slowness } from '../lost-answer.ts';
import { DataverseError } from './errors.ts';

export type FaultRule = { endpoint: string; rate429: number; rate500: number; truncatedRate: number; latencyMs: number; slowRate: number; slowMs: number; times?: number };
export type FaultDecision = { latencyMs: number; error?: DataverseError; truncate?: boolean };

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export { seeded };

const bad = (message: string) => new DataverseError(400, '0x80040203', message);
const share = (value: unknown, name: string) => {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw bad(`${name} must be a number from 0 to 1`);
  return value;
};

export function createFaults() {
  let rules: FaultRule[] = [];
  let random: () => number = Math.random;
  const injected = new Map<string, number>();
  const ruleFor = (kind: string) => rules.find((r) => r.endpoint !== '*' && kind.includes(r.endpoint)) ?? rules.find((r) => r.endpoint === '*');
  const hit = (what: string) => injected.set(what, (injected.get(what) ?? 0) + 1);
  return {
    add(body: Record<string, unknown>): FaultRule[] {
      const endpoint = body.endpoint === undefined ? '*' : String(body.endpoint);
      const latencyMs = body.latencyMs === undefined ? 0 : Number(body.latencyMs);
      if (!(latencyMs >= 0)) throw bad('latencyMs must be a number of at least 0');
      const slowMs = body.slowMs === undefined ? 0 : Number(body.slowMs);
      if (!(slowMs >= 0)) throw bad('slowMs must be a number of at least 0');
      const times = body.times === undefined ? undefined : Number(body.times);
      if (times !== undefined && !(Number.isInteger(times) && times >= 1)) throw bad('times must be a whole number of at least 1');
      const rule: FaultRule = { endpoint, rate429: share(body.rate429, 'rate429'), rate500: share(body.rate500, 'rate500'), truncatedRate: share(body.truncatedRate, 'truncatedRate'), latencyMs, slowRate: share(body.slowRate, 'slowRate'), slowMs, ...(times !== undefined && { times }) };
      if (rule.rate429 + rule.rate500 + rule.truncatedRate > 1) throw bad('rate429, rate500 and truncatedRate add up to more than 1');
      if (typeof body.seed === 'number') random = seeded(body.seed);
      rules = [...rules.filter((r) => r.endpoint !== endpoint), rule];
      return rules;
    },
    clear() {
      rules = [];
      random = Math.random;
      injected.clear();
    },
    list: () => rules,
    injected: () => Object.fromEntries(injected),
    decide(kind: string): FaultDecision {
      const rule = ruleFor(kind);
      if (!rule) return { latencyMs: 0 };
      if (rule.times !== undefined) {
        rule.times -= 1;
        if (rule.times <= 0) rules = rules.filter((r) => r !== rule);
      }
      const roll = random();
      const latencyMs = rule.latencyMs + slowness(rule, random);
      if (roll < rule.rate429) {
        hit('429');
        return { latencyMs, error: new DataverseError(429, '0x80072322', 'Number of requests exceeded the limit of 6000 over time window of 300 seconds.', { 'Retry-After': '1' }) };
      }
      if (roll < rule.rate429 + rule.rate500) {
        hit('500');
        return { latencyMs, error: new DataverseError(500, '0x80040216', `An unexpected error occurred. (injected by the sandbox, ${randomUUID()})`) };
      }
      if (roll < rule.rate429 + rule.rate500 + rule.truncatedRate) {
        hit('truncated');
        return { latencyMs, truncate: true };
      }
      return { latencyMs };
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
