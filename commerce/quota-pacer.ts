// Paces one commerce organization's calls to stay inside its service quotas (§8; A20). The organization's
// snapshot (GET {O}/services-and-quotas) says, per quota, the limit, the calls used in the current
// window and when that window ends. The pacer adds the calls this process sends to the `used` it last
// read; a call that would go past a limit waits until the window ends (or, past `maxWaitMs`, fails with
// a CommerceQuotaExhaustedError whose retryAfterMs tells the caller when to come back). Other processes
// sharing the organization are invisible between reads, so the server's figure is the truth: the
// snapshot is read again every `refreshMs`, when a window ends, when this process's count reaches a
// limit, and after a refusal; a refusal (429 naming a quota) holds every call of the organization for
// its Retry-After. Without a readable snapshot (no quotas, or the read failed) nothing is paced.
import { setTimeout as sleep } from 'node:timers/promises';
import { CommerceApiError } from './errors.ts';
import { PERIOD_MS, type Quota, type ServicesAndQuotas } from './quota-snapshot.ts';

export type PacerClock = { now(): number; sleep(ms: number): Promise<void> };
export const systemClock: PacerClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

export type QuotaPacerOptions = {
  clock?: PacerClock;
  /** How long a snapshot is trusted (default 2 minutes). */
  refreshMs?: number;
  /** Longest wait inside one call (default 60 s, the longest Retry-After the transport waits out); longer ones fail the call. */
  maxWaitMs?: number;
  /** Waits end this much after the window does, so the server's window has surely turned (default 250 ms). */
  marginMs?: number;
  /** Two reads of the snapshot at least this far apart (default 1 s). */
  minRereadMs?: number;
};

export type QuotaView = {
  orgId: string;
  /** When the snapshot was last read; undefined while none could be. */
  readAt?: Date;
  services: ServicesAndQuotas['services'];
  /** `used`: the server's figure at the last read plus the calls this process sent since. */
  quotas: Quota[];
  /** Calls that waited for a quota, how long in all, and refusals (429) the server answered. */
  waits: number;
  waitedMs: number;
  refused: number;
};

/** A call held back by the organization's quota for longer than the pacer waits inside one call. Not sent. */
export class CommerceQuotaExhaustedError extends CommerceApiError {
  override name = 'CommerceQuotaExhausted';
  readonly quota?: string;
  readonly resetsAt: Date;
  constructor(input: { orgId: string; operation: string; quota?: Quota; waitMs: number; now: number }) {
    const resetsAt = new Date(input.now + input.waitMs);
    const what = input.quota ? `its ${input.quota.name} quota (${input.quota.limit} calls per ${String(input.quota.period).toLowerCase()})` : 'its service quota';
    const message = `The commerce organization ${input.orgId} has used ${what} until ${resetsAt.toISOString()}; the sync waits for it and carries on then (${input.operation} was not sent)`;
    super({ status: 429, operation: input.operation, body: { code: 'RESOURCE_EXHAUSTED', quota: input.quota?.name, message }, retryAfterMs: input.waitMs });
    this.message = message;
    this.quota = input.quota?.name;
    this.resetsAt = resetsAt;
  }
}

type Tracked = Quota & { sent: number };

export class OrgQuotaPacer {
  readonly orgId: string;
  readonly #clock: PacerClock;
  readonly #refreshMs: number;
  readonly #maxWaitMs: number;
  readonly #marginMs: number;
  readonly #minRereadMs: number;
  #quotas: Tracked[] = [];
  #services: ServicesAndQuotas['services'] = [];
  #readAt: number | undefined;
  #lastAttempt = -Infinity;
  #stale = false;
  #reading: Promise<void> | undefined;
  #blockedUntil = 0;
  /** Calls admitted and not yet answered: the server may not have counted them when it answers a read. */
  #inFlight = 0;
  #stats = { waits: 0, waitedMs: 0, refused: 0 };

  constructor(orgId: string, options: QuotaPacerOptions = {}) {
    this.orgId = orgId;
    this.#clock = options.clock ?? systemClock;
    this.#refreshMs = options.refreshMs ?? 120_000;
    this.#maxWaitMs = options.maxWaitMs ?? 60_000;
    this.#marginMs = options.marginMs ?? 250;
    this.#minRereadMs = options.minRereadMs ?? 1_000;
  }

  /**
   * Resolves when one call of `operation` fits every quota, and counts it; the caller calls the returned
   * `done` once the call is answered (or failed). `read` fetches the snapshot (the caller's own client:
   * whichever client of the organization calls, its credentials read it).
   */
  async admit(read: () => Promise<ServicesAndQuotas>, operation: string): Promise<() => void> {
    for (;;) {
      // A read in flight is waited for: no call goes out on an older (or no) figure meanwhile.
      if (this.#reading || this.#needsRead(this.#clock.now())) await this.#read(read);
      const now = this.#clock.now();
      const hold = this.#holdFor(now);
      if (hold.ms <= 0) {
        for (const quota of this.#quotas) quota.sent += 1;
        this.#inFlight += 1;
        let done = false;
        return () => {
          if (!done) this.#inFlight -= 1;
          done = true;
        };
      }
      // Our own count says the quota is spent: the server's figure may differ (its window turned, or
      // other processes' calls); read it once before waiting.
      if (hold.quota && now - this.#lastAttempt >= this.#minRereadMs) {
        this.#stale = true;
        continue;
      }
      // The bound is on the time until the window ends; our margin after it is not counted against it,
      // so a minute quota spent in its window's first moments (60 s away, plus the margin) is waited out.
      if (hold.ms - (hold.quota ? this.#marginMs : 0) > this.#maxWaitMs) throw new CommerceQuotaExhaustedError({ orgId: this.orgId, operation, quota: hold.quota, waitMs: hold.ms, now });
      this.#stats.waits += 1;
      this.#stats.waitedMs += hold.ms;
      // After the wait the window has ended: the first caller awake reads the snapshot again (#needsRead).
      await this.#clock.sleep(hold.ms);
    }
  }

  /** The server refused a call for a quota (429): every call of the organization waits `retryAfterMs`. */
  refused(quotaName: string | undefined, retryAfterMs: number | undefined): void {
    const now = this.#clock.now();
    this.#stats.refused += 1;
    this.#blockedUntil = Math.max(this.#blockedUntil, now + Math.max(retryAfterMs ?? 1_000, 1_000));
    const quota = this.#quotas.find((candidate) => candidate.name === quotaName);
    if (quota) quota.sent = Math.max(quota.sent, quota.limit - quota.used);
    this.#stale = true;
  }

  view(): QuotaView {
    return {
      orgId: this.orgId,
      readAt: this.#readAt === undefined ? undefined : new Date(this.#readAt),
      services: this.#services,
      quotas: this.#quotas.map(({ sent, ...quota }) => ({ ...quota, used: quota.used + sent })),
      ...this.#stats,
    };
  }

  #needsRead(now: number): boolean {
    if (this.#stale) return true;
    const sinceAttempt = now - this.#lastAttempt;
    if (sinceAttempt >= this.#refreshMs) return true; // the first call, then every refreshMs (a failed read too)
    if (sinceAttempt < this.#minRereadMs) return false;
    return this.#quotas.some((quota) => quota.resetsAt !== undefined && quota.resetsAt.getTime() <= now); // a window ended
  }

  /** One read at a time; the callers that arrive meanwhile wait for the same answer. */
  async #read(read: () => Promise<ServicesAndQuotas>): Promise<void> {
    this.#reading ??= (async () => {
      this.#stale = false;
      this.#lastAttempt = this.#clock.now();
      // Calls on their way when the read goes out may be missing from the server's `used`: they stay
      // counted on top of it (counted twice at worst, which only errs on the safe side).
      const unanswered = this.#inFlight;
      try {
        const snapshot = await read();
        this.#readAt = this.#clock.now();
        this.#services = snapshot.services;
        this.#quotas = snapshot.quotas.map((quota) => ({ ...quota, sent: unanswered }));
      } catch {
        // Lenient (§9.5): without a snapshot the calls go unpaced, and a refusal is still waited out.
      }
      this.#rollWindows(this.#clock.now());
    })().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** Windows that ended without a fresh read start again from 0 (when the period is known). */
  #rollWindows(now: number): void {
    for (const quota of this.#quotas) {
      if (!quota.resetsAt || quota.resetsAt.getTime() > now) continue;
      const period = PERIOD_MS[quota.period];
      if (period === undefined) {
        quota.resetsAt = undefined; // unknown period: unpaced until the next read says more
        continue;
      }
      const ends = quota.resetsAt.getTime() + Math.ceil((now - quota.resetsAt.getTime() + 1) / period) * period;
      quota.resetsAt = new Date(ends);
      quota.used = 0;
      quota.sent = 0;
    }
  }

  /** How long the next call must wait, and for which quota (none: a refusal's hold). */
  #holdFor(now: number): { ms: number; quota?: Quota } {
    let hold: { ms: number; quota?: Quota } = { ms: this.#blockedUntil - now };
    for (const quota of this.#quotas) {
      if (!quota.resetsAt || quota.used + quota.sent < quota.limit) continue;
      const ms = quota.resetsAt.getTime() - now + this.#marginMs;
      if (ms > hold.ms) hold = { ms, quota };
    }
    return hold;
  }
}
