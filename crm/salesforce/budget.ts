// The daily API budget of one connection: parking and the end of a park.
//
// jsforce refreshes `connection.limitInfo` (Sforce-Limit-Info) only from a response, and a parked
// connection makes no call, so its figures go stale: deciding on them would park it again and again
// until the worker restarts. So whenever the figures say the reserve is reached, and whenever a park
// has ended, the real usage is read once from the limits resource (GET /limits, DailyApiRequests) and
// the decision is made on that. A connection still over the reserve parks again for `parkSeconds`
// without another call meanwhile.
import type { Connection } from 'jsforce';
import { CrmBudgetExhaustedError } from '../connector.ts';

export type BudgetGuard = ReturnType<typeof createBudgetGuard>;

type Usage = { used: number; limit: number };

export function createBudgetGuard(options: { reservedShare: number; parkSeconds: number; clock: () => Date }) {
  const { reservedShare, parkSeconds, clock } = options;
  let parkedUntil: Date | undefined;
  // One read of the limits resource at a time, shared by the calls waiting for it.
  let reading: Promise<void> | undefined;

  const overReserve = (usage: Usage | undefined): usage is Usage => Boolean(usage && usage.limit > 0 && usage.used >= usage.limit * (1 - reservedShare));
  const parked = (until: Date) =>
    new CrmBudgetExhaustedError(`This Salesforce connection is parked until ${until.toISOString()}: the daily API limit ran out or reached the reserved share`, until);

  async function readLimits(connection: Connection): Promise<void> {
    const limits = (await connection.limits()) as { DailyApiRequests?: { Max?: number; Remaining?: number } };
    const daily = limits.DailyApiRequests;
    const usage = daily && typeof daily.Max === 'number' && typeof daily.Remaining === 'number' ? { used: daily.Max - daily.Remaining, limit: daily.Max } : connection.limitInfo?.apiUsage;
    if (!overReserve(usage)) {
      parkedUntil = undefined;
      return;
    }
    parkedUntil = new Date(clock().getTime() + parkSeconds * 1000);
    throw new CrmBudgetExhaustedError(
      `Salesforce API usage is ${usage.used} of ${usage.limit} today (read from the org's limits); the last ${Math.round(reservedShare * 100)}% is reserved for the org's other work, so syncing waits until ${parkedUntil.toISOString()}`,
      parkedUntil,
    );
  }

  return {
    /** Set while parked (for budget()). */
    parkedUntil: (): Date | undefined => (parkedUntil && parkedUntil > clock() ? parkedUntil : undefined),
    /** A call said the daily limit is spent (REQUEST_LIMIT_EXCEEDED): no call until `until`. */
    park(until: Date) {
      parkedUntil = until;
    },
    /**
     * Before each call: refuses while parked; after a park, or when the last figures reach the reserve,
     * reads the real usage first and parks again only on that. Errors of the limits call are thrown as
     * jsforce gave them (the caller translates them; a spent limit parks through `park`).
     */
    async admit(connection: Connection): Promise<void> {
      if (parkedUntil && parkedUntil > clock()) throw parked(parkedUntil);
      const parkEnded = parkedUntil !== undefined;
      if (!parkEnded && !overReserve(connection.limitInfo?.apiUsage)) return;
      reading ??= readLimits(connection).finally(() => {
        reading = undefined;
      });
      await reading;
    },
  };
}
