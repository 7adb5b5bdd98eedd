// Injected trouble for resilience tests: by endpoint kind (as counted in /_sandbox/calls, a prefix
// ending in '*', or '*' for all), a share of requests answers 429, 500 or 503 before doing anything,
// and every matching request can be slowed down; a share can be slow (slowRate, slowMs) or carried
// out with its answer lost on the way (truncatedRate, sandbox/lost-answer.ts). A rule with `hold: true`
// (optionally for one `sobject`: the path's object name, or a collection's records' type) keeps each
// matching request waiting, before it is carried out, until the faults are cleared: a test stops a run
// in the middle for as long as it needs.
import { slowness } from '../lost-answer.ts';
import { RequestError } from './errors.ts';

export type FaultRule = { endpoint: string; rate429: number; rate500: number; rate503: number; latencyMs: number; truncatedRate: number; slowRate: number; slowMs: number; hold?: true; sobject?: string };
export type FaultDecision = { latencyMs: number; error?: RequestError; retryAfterSeconds?: number; truncate?: boolean; hold?: Promise<void> };

/** A small seeded generator (mulberry32) so a test can ask for a reproducible fault sequence. */
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

const rate = (value: unknown, name: string): number => {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new RequestError(400, 'INVALID_FAULT', `${name} must be a number from 0 to 1`);
  return value;
};

export function createFaults() {
  let rules: FaultRule[] = [];
  let random: () => number = Math.random;
  // How many answers each injected status replaced, so a test can show its faults were really met.
  const injected = new Map<string, number>();
  const met = (decision: FaultDecision): FaultDecision => {
    if (decision.error) injected.set(String(decision.error.status), (injected.get(String(decision.error.status)) ?? 0) + 1);
    return decision;
  };

  // Requests waiting on a hold rule, released together when the faults are cleared.
  let releaseHeld: (() => void)[] = [];

  const ruleFor = (kind: string, objectOf: () => string | undefined): FaultRule | undefined => {
    // A rule for this object comes before one for every object (the object is looked up only for such rules).
    const sobject = rules.some((r) => r.sobject !== undefined) ? objectOf() : undefined;
    const applying = [...rules.filter((r) => r.sobject !== undefined && r.sobject === sobject), ...rules.filter((r) => r.sobject === undefined)];
    return (
      applying.find((r) => r.endpoint === kind) ??
      applying.find((r) => r.endpoint.endsWith('*') && r.endpoint !== '*' && kind.startsWith(r.endpoint.slice(0, -1))) ??
      applying.find((r) => r.endpoint === '*')
    );
  };

  return {
    /** Adds a rule (replacing one for the same endpoint) and answers the rules in force. */
    add(body: Record<string, unknown>): FaultRule[] {
      const endpoint = body.endpoint === undefined ? '*' : String(body.endpoint);
      const latencyMs = body.latencyMs === undefined ? 0 : Number(body.latencyMs);
      if (!(latencyMs >= 0)) throw new RequestError(400, 'INVALID_FAULT', 'latencyMs must be a number of at least 0');
      const slowMs = body.slowMs === undefined ? 0 : Number(body.slowMs);
      if (!(slowMs >= 0)) throw new RequestError(400, 'INVALID_FAULT', 'slowMs must be a number of at least 0');
      if (body.hold !== undefined && typeof body.hold !== 'boolean') throw new RequestError(400, 'INVALID_FAULT', 'hold must be true or false');
      if (body.sobject !== undefined && typeof body.sobject !== 'string') throw new RequestError(400, 'INVALID_FAULT', 'sobject must be an object name');
      const rule: FaultRule = { endpoint, rate429: rate(body.rate429, 'rate429'), rate500: rate(body.rate500, 'rate500'), rate503: rate(body.rate503, 'rate503'), latencyMs, truncatedRate: rate(body.truncatedRate, 'truncatedRate'), slowRate: rate(body.slowRate, 'slowRate'), slowMs };
      if (body.hold === true) rule.hold = true;
      if (typeof body.sobject === 'string') rule.sobject = body.sobject;
      if (rule.rate429 + rule.rate500 + rule.rate503 + rule.truncatedRate > 1) throw new RequestError(400, 'INVALID_FAULT', 'the rates add up to more than 1');
      if (typeof body.seed === 'number') random = seeded(body.seed);
      rules = [...rules.filter((r) => r.endpoint !== endpoint || r.sobject !== rule.sobject), rule];
      return rules;
    },
    clear() {
      rules = [];
      for (const release of releaseHeld) release();
      releaseHeld = [];
      random = Math.random;
      injected.clear();
    },
    list: () => rules,
    injected: (): Record<string, number> => Object.fromEntries(injected),
    /** `objectOf`: the request's object name, if it has one (asked only when a rule names an object). */
    decide(kind: string, objectOf: () => string | undefined = () => undefined): FaultDecision {
      const rule = ruleFor(kind, objectOf);
      if (!rule) return { latencyMs: 0 };
      if (rule.hold) return { latencyMs: rule.latencyMs, hold: new Promise<void>((resolve) => releaseHeld.push(resolve)) };
      const roll = random();
      const latencyMs = rule.latencyMs + slowness(rule, random);
      if (roll < rule.rate429) {
        // Not a documented REST status; shaped like Salesforce's concurrency refusal, with Retry-After.
        return met({ latencyMs, retryAfterSeconds: 1, error: new RequestError(429, 'REQUEST_LIMIT_EXCEEDED', 'ConcurrentPerOrgLongTxn Limit exceeded.') });
      }
      if (roll < rule.rate429 + rule.rate500) {
        return met({
          latencyMs,
          error: new RequestError(500, 'UNKNOWN_EXCEPTION', 'An unexpected error occurred. Please include this ErrorId if you contact support: 1839437191-98765 (-1197658461)'),
        });
      }
      if (roll < rule.rate429 + rule.rate500 + rule.rate503) {
        return met({ latencyMs, error: new RequestError(503, 'SERVER_UNAVAILABLE', 'Server is temporarily unavailable. Try again later.') });
      }
      if (roll < rule.rate429 + rule.rate500 + rule.rate503 + rule.truncatedRate) {
        injected.set('truncated', (injected.get('truncated') ?? 0) + 1);
        return { latencyMs, truncate: true };
      }
      return { latencyMs };
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;

/** The object a request is about: the path's (`/sobjects/:type/...`), else a collection's first record's attributes.type. */
export function requestObject(params: Record<string, string>, body: string): string | undefined {
  if (params.type) return params.type;
  if (!body.includes('"records"')) return undefined;
  try {
    const type = (JSON.parse(body) as { records?: { attributes?: { type?: unknown } }[] }).records?.[0]?.attributes?.type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}
