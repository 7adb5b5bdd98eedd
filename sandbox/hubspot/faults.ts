// Injected trouble for resilience tests: per call kind (as counted in /_sandbox/calls, a prefix
// ending in '*', or '*' for all), a share of calls answers 429 (ten-secondly, HubSpot's body) or 500
// before doing anything, and matching calls can be slowed down; a share can be slow (slowRate, slowMs) or
// carried out with its answer lost on the way (truncatedRate, sandbox/lost-answer.ts). A seed makes the
// sequence reproducible.
import { randomUUID } from 'node:crypto';
import { slowness } from '../lost-answer.ts';
import { validation } from './errors.ts';

export type FaultRule = { endpoint: string; rate429: number; rate500: number; latencyMs: number; truncatedRate: number; slowRate: number; slowMs: number };
export type FaultDecision = { latencyMs: number; reply?: { status: number; body: Record<string, unknown> }; truncate?: boolean };

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

const share = (value: unknown, name: string) => {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw validation(`${name} must be a number from 0 to 1`);
  return value;
};

export function createFaults() {
  let rules: FaultRule[] = [];
  let random: () => number = Math.random;
  const injected = new Map<string, number>();
  const ruleFor = (kind: string) =>
    rules.find((r) => r.endpoint === kind) ??
    rules.find((r) => r.endpoint.endsWith('*') && r.endpoint !== '*' && kind.startsWith(r.endpoint.slice(0, -1))) ??
    rules.find((r) => r.endpoint === '*');
  const hit = (status: number, body: Record<string, unknown>, latencyMs: number): FaultDecision => {
    injected.set(String(status), (injected.get(String(status)) ?? 0) + 1);
    return { latencyMs, reply: { status, body } };
  };
  return {
    add(body: Record<string, unknown>): FaultRule[] {
      const endpoint = body.endpoint === undefined ? '*' : String(body.endpoint);
      const latencyMs = body.latencyMs === undefined ? 0 : Number(body.latencyMs);
      if (!(latencyMs >= 0)) throw validation('latencyMs must be a number of at least 0');
      const slowMs = body.slowMs === undefined ? 0 : Number(body.slowMs);
      if (!(slowMs >= 0)) throw validation('slowMs must be a number of at least 0');
      const rule = { endpoint, rate429: share(body.rate429, 'rate429'), rate500: share(body.rate500, 'rate500'), latencyMs, truncatedRate: share(body.truncatedRate, 'truncatedRate'), slowRate: share(body.slowRate, 'slowRate'), slowMs };
      if (rule.rate429 + rule.rate500 + rule.truncatedRate > 1) throw validation('rate429, rate500 and truncatedRate add up to more than 1');
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
      const roll = random();
      const latencyMs = rule.latencyMs + slowness(rule, random);
      if (roll < rule.rate429) {
        return hit(429, { status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: 'TEN_SECONDLY_ROLLING', requestId: randomUUID(), category: 'RATE_LIMITS' }, latencyMs);
      }
      if (roll < rule.rate429 + rule.rate500) {
        return hit(500, { status: 'error', message: 'internal error', correlationId: randomUUID(), category: 'INTERNAL_ERROR' }, latencyMs);
      }
      if (roll < rule.rate429 + rule.rate500 + rule.truncatedRate) {
        injected.set('truncated', (injected.get('truncated') ?? 0) + 1);
        return { latencyMs, truncate: true };
      }
      return { latencyMs };
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
