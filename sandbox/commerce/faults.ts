// Injected faults: latency, 429 with Retry-After, 500, malformed and truncated bodies. Decisions come
// from a seeded PRNG, so a test run with the same seed and the same calls sees the same faults.
import { badRequest } from './errors.ts';
import { isPlainObject } from './http-util.ts';
import { createRandom, type Random } from './prng.ts';

export type FaultRule = {
  rate429: number;
  rate500: number;
  retryAfterSeconds: number;
  latencyMs: number;
  malformedRate: number;
  truncatedRate: number;
};

export type FaultDecision = {
  latencyMs: number;
  status?: 429 | 500;
  retryAfterSeconds: number;
  corrupt?: 'malformed' | 'truncated';
};

const RATES = ['rate429', 'rate500', 'malformedRate', 'truncatedRate'] as const;

/** Parses the body of POST /_sandbox/faults; unknown fields and out-of-range values are 400s. */
export function parseFaultRule(body: unknown): { operation: string; rule: FaultRule } {
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object');
  const known = new Set(['operation', ...RATES, 'retryAfterSeconds', 'latencyMs']);
  for (const key of Object.keys(body)) if (!known.has(key)) throw badRequest(`unknown field ${key}; expected ${[...known].join(', ')}`);
  const operation = body.operation ?? '*';
  if (typeof operation !== 'string' || (operation !== '*' && !/^[A-Z]+ \//.test(operation))) {
    throw badRequest(`operation must be '*' or 'METHOD /path/template', got ${JSON.stringify(operation)}`);
  }
  const number = (name: string, fallback: number, max: number) => {
    const value = body[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) throw badRequest(`${name} must be a number from 0 to ${max}`);
    return value;
  };
  return {
    operation,
    rule: {
      rate429: number('rate429', 0, 1),
      rate500: number('rate500', 0, 1),
      malformedRate: number('malformedRate', 0, 1),
      truncatedRate: number('truncatedRate', 0, 1),
      retryAfterSeconds: Math.round(number('retryAfterSeconds', 1, 86_400)),
      latencyMs: number('latencyMs', 0, 60_000),
    },
  };
}

export class Faults {
  readonly #seed: number;
  #random: Random;
  #rules = new Map<string, FaultRule>();

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = createRandom(seed ^ 0x5eed_fa17);
  }

  /** Sets the rule of one operation key, or of every API operation with '*'. */
  set(operation: string, rule: FaultRule): void {
    this.#rules.set(operation, rule);
  }

  list(): Record<string, FaultRule> {
    return Object.fromEntries(this.#rules);
  }

  /** Clears every rule and restarts the PRNG, so the next run of faults repeats the last one. */
  clear(): void {
    this.#rules = new Map();
    this.#random = createRandom(this.#seed ^ 0x5eed_fa17);
  }

  /** The rule of this exact key, else the '*' rule (which never covers the token endpoint). */
  decide(key: string, wildcard = true): FaultDecision | undefined {
    const rule = this.#rules.get(key) ?? (wildcard ? this.#rules.get('*') : undefined);
    if (!rule) return undefined;
    const draw = (rate: number) => rate > 0 && this.#random.next() < rate;
    const decision: FaultDecision = { latencyMs: rule.latencyMs, retryAfterSeconds: rule.retryAfterSeconds };
    if (draw(rule.rate429)) decision.status = 429;
    else if (draw(rule.rate500)) decision.status = 500;
    else if (draw(rule.malformedRate)) decision.corrupt = 'malformed';
    else if (draw(rule.truncatedRate)) decision.corrupt = 'truncated';
    return decision;
  }
}
