// Injected faults: latency, 429 with Retry-After, 500, a refused call (a 4xx with a body of the
// contract's error shape, for a fraction of calls or for named record ids), a gateway's answer (a 4xx
// or 5xx in plain text, not JSON, from what stands in front of the service: for named record ids, a
// number of times), malformed and truncated bodies, and a 500 after the handler ran (the write
// happened, the answer says it failed). Decisions come from a seeded PRNG, so a test run with the same
// seed and the same calls sees the same faults.
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
  /** A 500 answered after the handler ran: the call took effect, the caller is told it failed. */
  rate500After: number;
  /**
   * A share of calls whose answer is lost at once (the connection drops, nothing is answered) while the
   * service carries the request out `lateCommitMs` later: what a client that gave up on a slow service,
   * or lost its connection through a proxy, lives with. The write lands after the caller saw the failure.
   */
  lateCommitRate: number;
  lateCommitMs: number;
  /** A share of answers that come `slowMs` later than the others (slow, not failed). */
  slowRate: number;
  slowMs: number;
  /** Present when the rule refuses calls: with `ids`, only calls whose path names one of them. */
  refusal?: Refusal;
  /** Present when a gateway answers instead of the service (plain text); `times` counts down to 0. */
  gateway?: Gateway;
};

export type Gateway = { status: number; body: string; contentType: GatewayContentType; ids?: string[]; times?: number };
type GatewayContentType = 'text/plain' | 'text/html';

export type Refusal = { rate4xx: number; status: number; body: unknown; ids?: string[] };

export type FaultDecision = {
  latencyMs: number;
  status?: 429 | 500;
  retryAfterSeconds: number;
  /** A 4xx to answer instead of running the handler. */
  refused?: { status: number; body: unknown };
  /** A gateway's plain-text answer instead of the service's (the handler does not run). */
  gateway?: { status: number; body: string; contentType: GatewayContentType };
  corrupt?: 'malformed' | 'truncated' | 'error500';
  /** The answer is lost now; the handler runs this many ms later. */
  lateCommitMs?: number;
};

const RATES = ['rate429', 'rate500', 'malformedRate', 'truncatedRate', 'rate500After', 'lateCommitRate', 'slowRate'] as const;

/** Parses the body of POST /_sandbox/faults; unknown fields and out-of-range values are 400s. */
export function parseFaultRule(body: unknown): { operation: string; rule: FaultRule } {
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object');
  const known = new Set(['operation', ...RATES, 'retryAfterSeconds', 'latencyMs', 'slowMs', 'lateCommitMs', ...REFUSAL_FIELDS, 'gateway']);
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
      rate500After: number('rate500After', 0, 1),
      lateCommitRate: number('lateCommitRate', 0, 1),
      lateCommitMs: number('lateCommitMs', 1_000, 120_000),
      retryAfterSeconds: Math.round(number('retryAfterSeconds', 1, 86_400)),
      latencyMs: number('latencyMs', 0, 60_000),
      slowRate: number('slowRate', 0, 1),
      slowMs: number('slowMs', 0, 120_000),
      ...parseRefusal(body, operation, number),
      ...parseGateway(body.gateway),
    },
  };
}

/** What a load balancer or proxy in front of a service sends: its status line's words, in plain text. */
const GATEWAY_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 413: 'Request Entity Too Large', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

/**
 * `gateway: {status, body?, contentType?, ids?, times?}`: the call is answered by what stands in front of
 * the service (a load balancer, a proxy, a web application firewall) with a 4xx or 5xx whose body is
 * plain text, not the JSON of §7.1. `ids` limits it to calls whose path names one of them; `times` to
 * that many calls (then the rule stops answering so), for a hiccup a client's retry gets past.
 */
function parseGateway(value: unknown): { gateway?: Gateway } {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw badRequest('gateway must be a JSON object {status, body?, contentType?, ids?, times?}', { field: 'gateway' });
  for (const key of Object.keys(value)) if (!['status', 'body', 'contentType', 'ids', 'times'].includes(key)) throw badRequest(`gateway.${key} is not a field of gateway; expected status, body, contentType, ids, times`, { field: `gateway.${key}` });
  const { status, body, contentType = 'text/plain', ids, times } = value;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) throw badRequest(`gateway.status must be an HTTP status from 400 to 599, got ${JSON.stringify(status)}`, { field: 'gateway.status' });
  if (body !== undefined && typeof body !== 'string') throw badRequest('gateway.body must be a string (sent as it is, not as JSON)', { field: 'gateway.body' });
  if (contentType !== 'text/plain' && contentType !== 'text/html') throw badRequest(`gateway.contentType must be text/plain or text/html, got ${JSON.stringify(contentType)}`, { field: 'gateway.contentType' });
  if (ids !== undefined && (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id !== ''))) {
    throw badRequest('gateway.ids must be a non-empty list of record ids (strings), as they appear in the path', { field: 'gateway.ids' });
  }
  if (times !== undefined && (typeof times !== 'number' || !Number.isInteger(times) || times < 1)) throw badRequest('gateway.times must be a whole number of at least 1', { field: 'gateway.times' });
  return {
    gateway: {
      status,
      body: body ?? `${status} ${GATEWAY_TEXT[status] ?? 'Error'}`,
      contentType,
      ...(ids !== undefined && { ids: ids as string[] }),
      ...(times !== undefined && { times }),
    },
  };
}

const REFUSAL_FIELDS = ['rate4xx', 'status', 'ids', 'body'];

/** Error codes of a refusal without its own body (A2's codes where it names one). */
const REFUSAL_CODES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 409: 'FAILED_PRECONDITION', 412: 'FAILED_PRECONDITION', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 422: 'INVALID_ARGUMENT' };

/** The refusal part of a rule: any of rate4xx, status, ids, body makes one (rate4xx then defaults to 1). */
function parseRefusal(body: Record<string, unknown>, operation: string, number: (name: string, fallback: number, max: number) => number): { refusal?: Refusal } {
  if (!REFUSAL_FIELDS.some((field) => body[field] !== undefined)) return {};
  const rate4xx = number('rate4xx', 1, 1);
  const status = body.status ?? 400;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499 || status === 429) {
    throw badRequest(`status must be an HTTP status from 400 to 499 other than 429 (use rate429 for that), got ${JSON.stringify(status)}`, { field: 'status' });
  }
  let ids: string[] | undefined;
  if (body.ids !== undefined) {
    if (!Array.isArray(body.ids) || body.ids.length === 0 || !body.ids.every((id) => typeof id === 'string' && id !== '')) {
      throw badRequest('ids must be a non-empty list of record ids (strings), as they appear in the path', { field: 'ids' });
    }
    ids = body.ids as string[];
  }
  // §7.1: an error body is a JSON object or a plain JSON string; A2: a 404 body is a plain string.
  let reply = body.body;
  if (reply === undefined) {
    const message = `${operation === '*' ? 'the call' : operation} was refused (sandbox fault)`;
    reply = status === 404 ? message : { code: REFUSAL_CODES[status] ?? 'FAILED_PRECONDITION', message };
  } else if (typeof reply !== 'string' && !isPlainObject(reply)) {
    throw badRequest('body must be a JSON object or a JSON string (the two error shapes of the contract, §7.1)', { field: 'body' });
  }
  return { refusal: ids ? { rate4xx, status, body: reply, ids } : { rate4xx, status, body: reply } };
}

export class Faults {
  /** Late commits under way (answered as lost, not yet carried out) and carried out so far: GET /_sandbox/late-commits. */
  readonly lateCommits = { pending: 0, landed: 0 };
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

  /**
   * The rule of this exact key, else the '*' rule (which never covers the token endpoint). `ids` are
   * the record ids in the call's path, which a refusal with `ids` must meet.
   */
  decide(key: string, wildcard = true, ids: readonly string[] = []): FaultDecision | undefined {
    const rule = this.#rules.get(key) ?? (wildcard ? this.#rules.get('*') : undefined);
    if (!rule) return undefined;
    const draw = (rate: number) => rate > 0 && this.#random.next() < rate;
    const decision: FaultDecision = { latencyMs: rule.latencyMs, retryAfterSeconds: rule.retryAfterSeconds };
    // The gateway stands in front of the service: it answers first, and draws nothing from the PRNG.
    const gateway = rule.gateway;
    if (gateway && (gateway.times === undefined || gateway.times > 0) && (!gateway.ids || gateway.ids.some((id) => ids.includes(id)))) {
      if (gateway.times !== undefined) gateway.times -= 1;
      decision.gateway = { status: gateway.status, body: gateway.body, contentType: gateway.contentType };
      return decision;
    }
    if (draw(rule.rate429)) decision.status = 429;
    else if (draw(rule.rate500)) decision.status = 500;
    else if (rule.refusal && refuses(rule.refusal, ids) && draw(rule.refusal.rate4xx)) decision.refused = { status: rule.refusal.status, body: rule.refusal.body };
    else if (draw(rule.malformedRate)) decision.corrupt = 'malformed';
    else if (draw(rule.truncatedRate)) decision.corrupt = 'truncated';
    // Drawn last, and only when set, so rules without it see the same faults as before it existed.
    else if (draw(rule.rate500After)) decision.corrupt = 'error500';
    // Likewise drawn only when set.
    else if (draw(rule.lateCommitRate)) decision.lateCommitMs = rule.lateCommitMs;
    if (draw(rule.slowRate)) decision.latencyMs += rule.slowMs;
    return decision;
  }
}

const refuses = (refusal: Refusal, ids: readonly string[]) => !refusal.ids || refusal.ids.some((id) => ids.includes(id));
