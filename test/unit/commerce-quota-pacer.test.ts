// The commerce quota pacer (commerce/quota-pacer.ts) on a fake clock: no real sleeps. A fake
// organization counts calls per fixed window as the service does (A20) and answers the snapshot; the
// times at which calls go out are written by hand from the quota, the window ends and the 250 ms margin.
import { describe, expect, it } from 'vitest';
import { CommerceQuotaExhaustedError, OrgQuotaPacer, type PacerClock } from '../../commerce/quota-pacer.ts';
import { parseServicesAndQuotas, type ServicesAndQuotas } from '../../commerce/quota-snapshot.ts';

/** Virtual time: sleeps are timers that `drive` fires in order, moving the clock to each. */
function fakeClock(startIso: string) {
  let now = Date.parse(startIso);
  const timers: { at: number; resolve: () => void }[] = [];
  const clock: PacerClock = {
    now: () => now,
    sleep: (ms) => new Promise<void>((resolve) => timers.push({ at: now + ms, resolve })),
  };
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  /** Runs `work` to its end, firing timers whenever everything else waits on one. */
  async function drive<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => (done = true));
    settled.catch(() => undefined);
    for (let step = 0; step < 10_000; step++) {
      await flush();
      if (done) return settled;
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      if (!next) continue;
      now = Math.max(now, next.at);
      next.resolve();
    }
    throw new Error('the work never finished');
  }
  return { clock, drive, iso: () => new Date(now).toISOString(), advance: (ms: number) => (now += ms) };
}

/** One organization as the service keeps it: calls per minute, refused past the limit. */
function fakeOrganization(clock: PacerClock, limit: number) {
  const windowStart = () => Math.floor(clock.now() / 60_000) * 60_000;
  const used = new Map<number, number>();
  const org = {
    reads: 0,
    refused: 0,
    readFails: false,
    /** Calls another process sends on the same organization (invisible to the pacer until it reads). */
    others(count: number) {
      used.set(windowStart(), (used.get(windowStart()) ?? 0) + count);
    },
    send(): 'ok' | 'refused' {
      const start = windowStart();
      if ((used.get(start) ?? 0) >= limit) {
        org.refused += 1;
        return 'refused';
      }
      used.set(start, (used.get(start) ?? 0) + 1);
      return 'ok';
    },
    read: async (): Promise<ServicesAndQuotas> => {
      org.reads += 1;
      if (org.readFails) throw new Error('HTTP 501');
      const start = windowStart();
      return parseServicesAndQuotas({ services: [{ name: 'offers', enabled: true }], quotas: [{ name: 'apiRequests', limit, used: used.get(start) ?? 0, period: 'MINUTE', resetsAt: new Date(start + 60_000).toISOString(), unknownField: 1 }] });
    },
  };
  return org;
}

describe('the commerce quota pacer', () => {
  it('sends what fits the minute, then waits for the next window: no call is refused', async () => {
    const time = fakeClock('2026-03-10T12:00:30.000Z');
    const org = fakeOrganization(time.clock, 5);
    org.others(2); // used 2 of 5 when the run starts
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock });
    const sentAt: string[] = [];
    await time.drive(
      (async () => {
        for (let call = 0; call < 10; call++) {
          const done = await pacer.admit(org.read, 'GET /org/{orgId}/offer');
          expect(org.send()).toBe('ok');
          done();
          sentAt.push(time.iso());
        }
      })(),
    );
    expect(sentAt).toEqual([
      ...Array(3).fill('2026-03-10T12:00:30.000Z'),
      ...Array(5).fill('2026-03-10T12:01:00.250Z'),
      ...Array(2).fill('2026-03-10T12:02:00.250Z'),
    ]);
    expect(org.refused).toBe(0);
    expect(pacer.view()).toMatchObject({ orgId: 'org-1', waits: 2, waitedMs: 30_250 + 60_000, refused: 0, quotas: [{ name: 'apiRequests', limit: 5, used: 2, period: 'MINUTE' }] });
  });

  it('lets concurrent callers share one snapshot read and never counts a call twice', async () => {
    const time = fakeClock('2026-03-10T12:00:00.000Z');
    const org = fakeOrganization(time.clock, 3);
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock, maxWaitMs: 180_000 });
    const sentAt: string[] = [];
    await time.drive(
      Promise.all(
        Array.from({ length: 8 }, async () => {
          const done = await pacer.admit(org.read, 'GET /org/{orgId}/offer');
          expect(org.send()).toBe('ok');
          done();
          sentAt.push(time.iso());
        }),
      ),
    );
    expect(sentAt.sort()).toEqual([
      ...Array(3).fill('2026-03-10T12:00:00.000Z'),
      ...Array(3).fill('2026-03-10T12:01:00.250Z'),
      ...Array(2).fill('2026-03-10T12:02:00.250Z'),
    ]);
    // One read for the eight first callers, then one as each window ends (not one per caller awake).
    expect(org.reads).toBe(3);
  });

  it("takes the server's figure as the truth: calls of another process seen at the next read shorten what is left", async () => {
    const time = fakeClock('2026-03-10T12:00:00.000Z');
    const org = fakeOrganization(time.clock, 10);
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock, refreshMs: 5_000 });
    const sentAt: string[] = [];
    await time.drive(
      (async () => {
        for (let call = 0; call < 4; call++) {
          const done = await pacer.admit(org.read, 'GET /org/{orgId}/offer');
          expect(org.send()).toBe('ok');
          done();
          sentAt.push(time.iso());
        }
        org.others(5); // 9 of 10 used now; this process counted 4
        time.advance(5_000); // the snapshot is due again
        for (let call = 0; call < 2; call++) {
          const done = await pacer.admit(org.read, 'GET /org/{orgId}/offer');
          expect(org.send()).toBe('ok');
          done();
          sentAt.push(time.iso());
        }
      })(),
    );
    expect(sentAt.slice(4)).toEqual(['2026-03-10T12:00:05.000Z', '2026-03-10T12:01:00.250Z']);
    expect(org.refused).toBe(0);
  });

  it('keeps counting the calls still on their way when it reads the snapshot: the server may not have counted them yet', async () => {
    const time = fakeClock('2026-03-10T12:00:00.000Z');
    const org = fakeOrganization(time.clock, 5);
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock, refreshMs: 10_000 });
    // Three calls admitted, not yet arrived at the server (nor answered).
    const unanswered = [];
    for (let call = 0; call < 3; call++) unanswered.push(await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer')));
    time.advance(10_000); // the snapshot is due again; the server still says 0 used
    const sentAt: string[] = [];
    await time.drive(
      (async () => {
        for (let call = 0; call < 3; call++) {
          (await pacer.admit(org.read, 'GET /org/{orgId}/offer'))();
          sentAt.push(time.iso());
        }
      })(),
    );
    expect(sentAt).toEqual(['2026-03-10T12:00:10.000Z', '2026-03-10T12:00:10.000Z', '2026-03-10T12:01:00.250Z']);
    for (const done of unanswered) done();
  });

  it('holds every call of the organization for the Retry-After of a refusal, and reads the snapshot again', async () => {
    const time = fakeClock('2026-03-10T12:00:00.000Z');
    const org = fakeOrganization(time.clock, 100);
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock });
    await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer'));
    pacer.refused('apiRequests', 7_000);
    await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer'));
    expect(time.iso()).toBe('2026-03-10T12:00:07.000Z');
    expect(org.reads).toBe(2); // the first, then at the refusal
    expect(pacer.view()).toMatchObject({ refused: 1, waits: 1, waitedMs: 7_000 });
  });

  it('fails a call it would hold longer than maxWaitMs with the time to come back, counting nothing', async () => {
    const time = fakeClock('2026-03-10T12:00:10.000Z');
    const org = fakeOrganization(time.clock, 1);
    const pacer = new OrgQuotaPacer('org-7', { clock: time.clock, maxWaitMs: 20_000 });
    (await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer')))();
    org.send();
    const failure = await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/entitlement')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CommerceQuotaExhaustedError);
    expect(failure).toMatchObject({ status: 429, retryAfterMs: 50_250, quota: 'apiRequests' });
    expect((failure as Error).message).toBe(
      'The commerce organization org-7 has used its apiRequests quota (1 calls per minute) until 2026-03-10T12:01:00.250Z; the sync waits for it and carries on then (GET /org/{orgId}/entitlement was not sent)',
    );
    expect(pacer.view().quotas[0]!.used).toBe(1);
  });

  it('waits out a minute quota spent in the first moments of its window (the end is a minute and the margin away), rather than failing', async () => {
    // Spent 100 ms into the minute: the window ends 59.9 s later, and the call goes 250 ms after that (60.15 s),
    // past a 60 s bound that counts the margin. A minute window's end is always waited for.
    const time = fakeClock('2026-03-10T12:00:00.100Z');
    const org = fakeOrganization(time.clock, 1);
    const pacer = new OrgQuotaPacer('org-8', { clock: time.clock, maxWaitMs: 60_000 });
    (await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer')))();
    org.send();
    (await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/entitlement')))();
    expect(time.iso()).toBe('2026-03-10T12:01:00.250Z');
    expect(org.send()).toBe('ok');
    expect(pacer.view()).toMatchObject({ waits: 1, waitedMs: 60_150 });
  });

  it('paces nothing without a readable snapshot, and tries the read again after refreshMs', async () => {
    const time = fakeClock('2026-03-10T12:00:00.000Z');
    const org = fakeOrganization(time.clock, 1);
    org.readFails = true;
    const pacer = new OrgQuotaPacer('org-1', { clock: time.clock, refreshMs: 60_000 });
    for (const done of await time.drive(Promise.all(Array.from({ length: 5 }, () => pacer.admit(org.read, 'GET /org/{orgId}/offer'))))) done();
    expect(time.iso()).toBe('2026-03-10T12:00:00.000Z');
    expect(org.reads).toBe(1);
    time.advance(60_000);
    org.readFails = false;
    await time.drive(pacer.admit(org.read, 'GET /org/{orgId}/offer'));
    expect(org.reads).toBe(2);
    expect(pacer.view().quotas).toHaveLength(1);
    expect(parseServicesAndQuotas({ services: 'none' })).toEqual({ services: [], quotas: [] });
  });
});
